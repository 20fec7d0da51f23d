package templates

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ChartPoint is one bar of a bar chart: its label (a day or a week), the value it draws
// and the value as people read it.
type ChartPoint struct {
	Label string
	Value float64
	Text  string
}

// Chart is a bar chart drawn on the server as SVG, with a data table behind it.
type Chart struct {
	ID          string // unique on the page, for the title and description ids
	Title       string
	Description string
	// Unit heads the value column of the data table ("Revenue (EUR)", "Purchases").
	Unit   string
	Points []ChartPoint
	// BarClass colours the bars (a fill-* class).
	BarClass string
	// Whole says the values are counts: the value axis steps by whole numbers.
	Whole bool
}

// The chart is three drawings side by side: the value axis's labels in a column of
// fixed width, the bars stretched to the width left, and the period labels under them.
// Only the bars scale; the labels keep the stylesheet's size at every width (an SVG
// scaled as a whole shrinks its text with it: 8 px on a phone).
const (
	// chartH is the height of the bars' drawing in CSS pixels (h-48), chartPad the
	// room above the highest gridline and below the axis, for half a label.
	chartH   = 192.0
	chartPad = 8.0
	// chartBarsW is the bars' drawing's own width, stretched to the room there is.
	chartBarsW = 1000.0
	// chartAxisX is where the value labels end, in their column (w-11, 44 px).
	chartAxisX = 38.0
	// chartCharW bounds the width of a character of a label at the stylesheet's 12 px,
	// for spacing the period labels; chartLabelGap is the least room between two.
	chartCharW    = 7.5
	chartLabelGap = 8.0
	// chartPhoneW and chartWideW are the narrowest the bars are drawn on a phone (a
	// 360 px screen) and from the sm breakpoint up (two charts side by side at lg):
	// the period labels are chosen to fit those.
	chartPhoneW = 250.0
	chartWideW  = 390.0
)

// chartBar is a bar as the SVG draws it.
type chartBar struct {
	X, Y, W, H string
	Tip        string
}

// chartTick is a gridline with its label.
type chartTick struct {
	Y, Label string
}

// chartLabel is a label under a bar: X is where its Anchor stands (start, middle or
// end), as a percentage of the bars' width; Class shows it only where it fits.
type chartLabel struct {
	X, Anchor, Label, Class string
}

// scale returns the top of the value axis and the step between its gridlines: 1, 2 or
// 5 times a power of ten (a whole number for counts), at most five steps up to the
// highest value.
func (c Chart) scale() (top, step float64) {
	m := 0.0
	for _, p := range c.Points {
		m = math.Max(m, p.Value)
	}
	if m <= 0 {
		return 1, 1
	}
	raw := m / 5
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, k := range []float64{1, 2, 5, 10} {
		if step = k * p; step >= raw*(1-1e-9) {
			break
		}
	}
	if c.Whole && step < 1 {
		step = 1
	}
	return math.Ceil(m/step-1e-9) * step, step
}

func px(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// valueY is the height in the drawings of a value on the axis up to top.
func valueY(v, top float64) float64 { return chartPad + (chartH-2*chartPad)*(1-v/top) }

func (c Chart) barsViewBox() string { return fmt.Sprintf("0 0 %.0f %.0f", chartBarsW, chartH) }

func (c Chart) bars() []chartBar {
	n := len(c.Points)
	if n == 0 {
		return nil
	}
	slot := chartBarsW / float64(n)
	gap := slot * 0.2
	top, _ := c.scale()
	base := valueY(0, top)
	out := make([]chartBar, n)
	for i, p := range c.Points {
		h := base - valueY(p.Value, top)
		if p.Value > 0 && h < 1 {
			h = 1
		}
		out[i] = chartBar{X: px(float64(i)*slot + gap/2), Y: px(base - h), W: px(slot - gap), H: px(h), Tip: p.Label + ": " + p.Text}
	}
	return out
}

func (c Chart) ticks() []chartTick {
	top, step := c.scale()
	var out []chartTick
	for i := 0; float64(i)*step <= top*(1+1e-9); i++ {
		v := float64(i) * step
		out = append(out, chartTick{Y: px(valueY(v, top)), Label: compact(v, step)})
	}
	return out
}

// xLabels labels the first bar and others evenly spaced, as many as fit without
// touching: on a phone those that fit chartPhoneW, from sm up those that fit
// chartWideW. A label stands centred under its bar, or against the edge of the bars
// when it would not fit there on the narrowest phone. Labels that do not touch at a
// width do not touch at any width above it.
func (c Chart) xLabels() []chartLabel {
	n := len(c.Points)
	if n == 0 {
		return nil
	}
	type place struct {
		f, w   float64 // the bar's middle as a fraction of the width; the label's width in px
		anchor string
	}
	places := make([]place, n)
	for i, p := range c.Points {
		pl := place{f: (float64(i) + 0.5) / float64(n), w: labelWidth(p.Label), anchor: "middle"}
		switch {
		case pl.f*chartPhoneW < pl.w/2:
			pl.anchor = "start"
		case (1-pl.f)*chartPhoneW < pl.w/2:
			pl.anchor = "end"
		}
		places[i] = pl
	}
	// extent is where a label stands on bars width px wide.
	extent := func(pl place, width float64) (left, right float64) {
		switch pl.anchor {
		case "start":
			return 0, pl.w
		case "end":
			return width - pl.w, width
		}
		return pl.f*width - pl.w/2, pl.f*width + pl.w/2
	}
	// pick labels every step-th bar from the first, with the least step at which none
	// touches another at the width.
	pick := func(width float64) map[int]bool {
		for step := 1; ; step++ {
			chosen, end := map[int]bool{}, math.Inf(-1)
			for i := 0; i < n; i += step {
				left, right := extent(places[i], width)
				if left < end {
					chosen = nil
					break
				}
				chosen[i], end = true, right+chartLabelGap
			}
			if chosen != nil {
				return chosen
			}
			if step >= n {
				return map[int]bool{0: true}
			}
		}
	}
	phone, wide := pick(chartPhoneW), pick(chartWideW)
	var out []chartLabel
	for i, p := range c.Points {
		x := places[i].f
		switch places[i].anchor {
		case "start":
			x = 0
		case "end":
			x = 1
		}
		l := chartLabel{X: strconv.FormatFloat(x*100, 'f', 2, 64) + "%", Anchor: places[i].anchor, Label: p.Label}
		switch {
		case phone[i] && wide[i]:
		case phone[i]:
			l.Class = "sm:hidden"
		case wide[i]:
			l.Class = "max-sm:hidden"
		default:
			continue
		}
		out = append(out, l)
	}
	return out
}

func labelWidth(s string) float64 { return chartCharW * float64(len([]rune(s))) }

// compact writes an axis value briefly, with as many decimals as the step between
// values needs: 1.5k, 2M, 0.25.
func compact(v, step float64) string {
	unit, suffix := 1.0, ""
	switch {
	case v >= 1e9:
		unit, suffix = 1e9, "B"
	case v >= 1e6:
		unit, suffix = 1e6, "M"
	case v >= 1e3:
		unit, suffix = 1e3, "k"
	}
	decimals := max(0, int(math.Ceil(-math.Log10(step/unit)-1e-9)))
	s := strconv.FormatFloat(v/unit, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + suffix
}

func (c Chart) axisY() string { return px(valueY(0, 1)) }
func (c Chart) axisX() string { return px(chartAxisX) }
