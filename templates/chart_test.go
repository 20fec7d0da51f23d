package templates

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func chartOf(whole bool, values ...float64) Chart {
	c := Chart{Whole: whole}
	for i, v := range values {
		c.Points = append(c.Points, ChartPoint{Label: "Mon " + strconv.Itoa(i+1) + " Jan", Value: v})
	}
	return c
}

func tickLabels(c Chart) []string {
	var out []string
	for _, t := range c.ticks() {
		out = append(out, t.Label)
	}
	return out
}

func TestChart_Ticks(t *testing.T) {
	for _, tt := range []struct {
		name  string
		chart Chart
		want  []string
	}{
		// Counts step by whole numbers: never 2.5 or 7.5 purchases.
		{"CountsTen", chartOf(true, 3, 10, 4), []string{"0", "2", "4", "6", "8", "10"}},
		{"CountsThree", chartOf(true, 1, 3), []string{"0", "1", "2", "3"}},
		{"CountsOne", chartOf(true, 1, 0), []string{"0", "1"}},
		{"CountsNone", chartOf(true, 0, 0), []string{"0", "1"}},
		{"CountsThousands", chartOf(true, 1234), []string{"0", "500", "1k", "1.5k"}},
		// Amounts may step by fractions, written with the decimals the step needs.
		{"AmountsSmall", chartOf(false, 0.07), []string{"0", "0.02", "0.04", "0.06", "0.08"}},
		{"AmountsTen", chartOf(false, 10), []string{"0", "2", "4", "6", "8", "10"}},
		{"AmountsMillions", chartOf(false, 2.4e6), []string{"0", "500k", "1M", "1.5M", "2M", "2.5M"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tickLabels(tt.chart); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestChart_XLabels: the period labels chosen for a width never touch at that width or
// any wider one, stay within the bars, and are as many as fit.
func TestChart_XLabels(t *testing.T) {
	for _, tt := range []struct{ bars, phone, wide int }{{14, 2, 4}, {27, 2, 4}, {31, 2, 4}} {
		labels := chartOf(true, make([]float64, tt.bars)...).xLabels()
		phone, wide := 0, 0
		for _, l := range labels {
			if l.Class != "max-sm:hidden" {
				phone++
			}
			if l.Class != "sm:hidden" {
				wide++
			}
		}
		if phone < tt.phone || wide < tt.wide {
			t.Errorf("%d bars: %d labels on a phone and %d wider, want at least %d and %d", tt.bars, phone, wide, tt.phone, tt.wide)
		}
	}
	for _, n := range []int{1, 2, 7, 14, 31, 27, 53} {
		vals := make([]float64, n)
		c := chartOf(true, vals...)
		labels := c.xLabels()
		if len(labels) == 0 || labels[0].Label != c.Points[0].Label {
			t.Fatalf("%d bars: got %v, want the first bar labelled", n, labels)
		}
		for _, set := range []struct {
			hidden string
			widths []float64
		}{{"sm:hidden", []float64{chartWideW, 700}}, {"max-sm:hidden", []float64{chartPhoneW, 250, 300}}} {
			for _, width := range set.widths {
				end := -1.0
				for _, l := range labels {
					if l.Class == set.hidden {
						continue
					}
					x, _ := strconv.ParseFloat(strings.TrimSuffix(l.X, "%"), 64)
					x = x / 100 * width
					w := labelWidth(l.Label)
					left := map[string]float64{"start": x, "middle": x - w/2, "end": x - w}[l.Anchor]
					if left < 0 || left+w > width || left < end {
						t.Errorf("%d bars at %.0f px: %q stands at %.1f–%.1f (the one before ends at %.1f)", n, width, l.Label, left, left+w, end)
					}
					end = left + w
				}
			}
		}
	}
}
