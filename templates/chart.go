package templates

import (
	"fmt"
	"math"
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
}

// Chart geometry, in the SVG's own units: the drawing scales to its box.
const (
	chartW      = 720.0
	chartH      = 240.0
	chartLeft   = 56.0
	chartRight  = 8.0
	chartTop    = 12.0
	chartBottom = 28.0
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

// chartLabel is a label under the x axis.
type chartLabel struct {
	X, Label string
}

func (c Chart) max() float64 {
	m := 0.0
	for _, p := range c.Points {
		m = math.Max(m, p.Value)
	}
	return niceCeil(m)
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten, so that gridlines fall on round
// values.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func px(v float64) string { return fmt.Sprintf("%.1f", v) }

func (c Chart) viewBox() string { return fmt.Sprintf("0 0 %.0f %.0f", chartW, chartH) }

func (c Chart) bars() []chartBar {
	n := len(c.Points)
	if n == 0 {
		return nil
	}
	plotW, plotH := chartW-chartLeft-chartRight, chartH-chartTop-chartBottom
	slot := plotW / float64(n)
	gap := math.Min(slot*0.2, 4)
	top := c.max()
	out := make([]chartBar, n)
	for i, p := range c.Points {
		h := plotH * p.Value / top
		if p.Value > 0 && h < 1 {
			h = 1
		}
		out[i] = chartBar{X: px(chartLeft + float64(i)*slot + gap/2), Y: px(chartTop + plotH - h), W: px(slot - gap), H: px(h),
			Tip: p.Label + ": " + p.Text}
	}
	return out
}

func (c Chart) ticks() []chartTick {
	plotH := chartH - chartTop - chartBottom
	top := c.max()
	out := make([]chartTick, 0, 5)
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		out = append(out, chartTick{Y: px(chartTop + plotH - plotH*float64(i)/4), Label: compact(v)})
	}
	return out
}

// xLabels labels the first bar and a few more, evenly spaced, so that they never overlap.
func (c Chart) xLabels() []chartLabel {
	n := len(c.Points)
	if n == 0 {
		return nil
	}
	slot := (chartW - chartLeft - chartRight) / float64(n)
	step := int(math.Ceil(float64(n) / 6))
	var out []chartLabel
	for i := 0; i < n; i += step {
		out = append(out, chartLabel{X: px(chartLeft + float64(i)*slot + slot/2), Label: c.Points[i].Label})
	}
	return out
}

// compact writes an axis value briefly: 1.5k, 2M.
func compact(v float64) string {
	switch {
	case v >= 1e9:
		return trimZero(v/1e9) + "B"
	case v >= 1e6:
		return trimZero(v/1e6) + "M"
	case v >= 1e3:
		return trimZero(v/1e3) + "k"
	}
	return trimZero(v)
}

func trimZero(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

func (c Chart) axisY() string  { return px(chartH - chartBottom) }
func (c Chart) axisX1() string { return px(chartLeft) }
func (c Chart) axisX2() string { return px(chartW - chartRight) }
func (c Chart) labelY() string { return px(chartH - 8) }
func (c Chart) tickX() string  { return px(chartLeft - 6) }
