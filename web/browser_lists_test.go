package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"storefront/templates"
)

// rowBoxes lists the purchases whose row boxes are ticked, of those a person sees at
// the window's width (the table's on a desktop, the cards' on a phone).
const rowBoxes = `[...document.querySelectorAll('input[form=bulk][name=id]')].filter(b => b.checkVisibility())`

// TestBrowser_BulkSelection: the purchases ticked are one selection whether ticked in
// the desktop table or on the phone's cards, across a resize; "Select all N matching"
// ticks every row, and unticking one row leaves select-all with the rest ticked, which
// is what the confirmation then counts.
func TestBrowser_BulkSelection(t *testing.T) {
	browser := startBrowser(t)
	e := newAPI(t, 0)
	tb := signedInTab(t, browser, e.url, "/purchases", e.newUser(e.id(1), "staff"))
	tb.openAt(t, viewports[0], "/purchases?status=ACT")
	ticked := func() string {
		return eval[string](t, tb, rowBoxes+`.filter(b => b.checked).map(b => b.value).join(',')`)
	}

	picked := eval[string](t, tb, `(() => { const boxes = `+rowBoxes+`.slice(1, 3); boxes.forEach(b => b.click()); return boxes.map(b => b.value).join(','); })()`)
	if strings.Count(picked, ",") != 1 || ticked() != picked {
		t.Fatalf("at 1440 px: ticked %q, want the two clicked (%q)", ticked(), picked)
	}
	tb.setViewport(t, viewports[1])
	if got := ticked(); got != picked {
		t.Errorf("the same page at 390 px: ticked %q, want %q (ticked at 1440 px)", got, picked)
	}
	first := strings.Split(picked, ",")[0]
	tb.do(t, "untick a card", chromedp.Click(chromedp.JSPath(rowBoxes+`.find(b => b.value === `+js(first)+`)`)))
	tb.setViewport(t, viewports[0])
	if got, want := ticked(), strings.Split(picked, ",")[1]; got != want {
		t.Errorf("back at 1440 px: ticked %q, want %q (one unticked at 390 px)", got, want)
	}

	for _, v := range []viewport{viewports[0], viewports[1]} {
		tb.setViewport(t, v)
		all := chromedp.JSPath(`document.querySelector('#bulk input[name=all]')`)
		if eval[bool](t, tb, `document.querySelector('#bulk input[name=all]').checked`) {
			tb.do(t, "untick select all", chromedp.Click(all))
		}
		tb.do(t, "tick select all", chromedp.Click(all))
		n := eval[int](t, tb, rowBoxes+`.length`)
		if got := eval[int](t, tb, `document.querySelectorAll('input[form=bulk][name=id]:checked').length`); n < 3 || got != 2*n {
			t.Errorf("%s: select all ticks %d row boxes, want all %d, in the table and on the cards", v.name, got, 2*n)
		}
		tb.screenshot(t, "purchases-select-all", v)
		tb.do(t, "untick select all", chromedp.Click(all))
		if got := eval[int](t, tb, `document.querySelectorAll('input[form=bulk][name=id]:checked').length`); got != 0 {
			t.Errorf("%s: unticking select all leaves %d row boxes ticked", v.name, got)
		}
		tb.do(t, "tick select all", chromedp.Click(all))
		tb.do(t, "untick the first row", chromedp.Click(chromedp.JSPath(rowBoxes+`[0]`)))
		if eval[bool](t, tb, `document.querySelector('#bulk input[name=all]').checked`) {
			t.Errorf("%s: select all stays ticked with a row unticked", v.name)
		}
		if got := eval[int](t, tb, rowBoxes+`.filter(b => b.checked).length`); got != n-1 {
			t.Errorf("%s: %d rows ticked after unticking one of %d, want %d", v.name, got, n, n-1)
		}
		tb.checkAxe(t, "the purchases list with a selection at "+v.name)
	}
	n := eval[int](t, tb, rowBoxes+`.filter(b => b.checked).length`)
	if st := tb.follow(t, "press Reactivate selected", chromedp.Click(buttonByText("Reactivate selected"))); st != http.StatusOK {
		t.Fatalf("confirmation: %d", st)
	}
	want := js(templates.FormatCount(int64(n)) + " purchases are selected")
	tb.waitFor(t, "the confirmation of the rows ticked", `text(document.querySelector('main form p')).startsWith(`+want+`)`, `text(document.querySelector('main'))`)
	tb.checkConsole(t)
}

// TestBrowser_OverviewCharts measures the overview's charts as drawn at phone and
// desktop widths, by day and by week: every axis label at least 12 px high, within its
// chart, none running into another (the value axis's 0 and the first date), and the
// purchases chart's value axis on whole numbers.
func TestBrowser_OverviewCharts(t *testing.T) {
	browser := startBrowser(t)
	e := newAPI(t, 0)
	tb := signedInTab(t, browser, e.url, "/", e.newUser(e.id(1), "viewer"))
	for _, v := range []viewport{viewports[1], viewports[0]} {
		for _, path := range []string{"/?date_min=-13+days&date_max=now", "/?date_min=-6+months&date_max=now"} {
			tb.openAt(t, v, path)
			problems := eval[[]string](t, tb, `(() => {
				const out = [], box = (el) => el.getBoundingClientRect();
				const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
				const value = (s) => parseFloat(s) * ({k: 1e3, M: 1e6, B: 1e9}[s.slice(-1)] || 1);
				for (const fig of document.querySelectorAll('#main figure')) {
					const name = fig.querySelector('figcaption').textContent.trim(), f = box(fig);
					const labels = [...fig.querySelectorAll('svg text')].filter(t => t.checkVisibility());
					const ys = labels.filter(t => t.dataset.axis === 'y'), xs = labels.filter(t => t.dataset.axis === 'x');
					if (ys.length < 2 || xs.length < 2) out.push(name + ': ' + ys.length + ' value labels and ' + xs.length + ' period labels');
					for (const t of labels) {
						const size = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().d, r = box(t);
						if (size < 12 || r.height < 12) out.push(name + ': "' + t.textContent + '" is ' + size.toFixed(1) + ' px (its box ' + r.height.toFixed(1) + ' px high)');
						if (r.left < f.left || r.right > f.right) out.push(name + ': "' + t.textContent + '" leaves the chart');
					}
					for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
						if (meet(box(labels[i]), box(labels[j]))) out.push(name + ': "' + labels[i].textContent + '" runs into "' + labels[j].textContent + '"');
					}
					if (fig.querySelector('#chart-purchases-caption')) {
						for (const t of ys) if (!Number.isInteger(value(t.textContent))) out.push(name + ': the count axis has the tick ' + t.textContent);
					}
				}
				return out;
			})()`)
			for _, p := range problems {
				t.Errorf("%s at %s: %s", path, v.name, p)
			}
			if strings.Contains(path, "months") {
				tb.screenshot(t, "overview-charts", v)
				tb.checkAxe(t, "the overview at "+v.name)
			}
		}
	}
	tb.checkConsole(t)
}
