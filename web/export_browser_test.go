package web_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// download clicks through to a download in the tab and returns the file the browser
// saved.
func (tb *tab) download(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) []byte {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(tb.ctx, 2*stepTimeout)
	defer cancel()
	progress := chromedp.Events(ctx, browser.DownloadProgress)
	id := chromedp.FromContext(tb.ctx).BrowserContextID
	events := true
	allow := chromedp.Action[chromedp.Void](func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, BrowserContextID: id, DownloadPath: dir, EventsEnabled: &events,
		})
		return chromedp.Void{}, err
	})
	if err := chromedp.Do(ctx, append([]chromedp.Action[chromedp.Void]{allow}, steps...)...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("%s: no download: %v", what, err)
		}
		switch ev.State {
		case browser.DownloadProgressStateCompleted:
			b, err := os.ReadFile(filepath.Join(dir, ev.GUID))
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			return b
		case browser.DownloadProgressStateCanceled:
			t.Fatalf("%s: the download was canceled", what)
		}
	}
	t.Fatalf("%s: the download did not complete", what)
	return nil
}

// TestBrowser_ExportCSV: a viewer filters the purchases, opens Export CSV, picks each
// kind of file and gets the rows the page's filters select, newest first.
func TestBrowser_ExportCSV(t *testing.T) {
	br := startBrowser(t)
	e := newAPI(t, 0)
	viewer := signedInTab(t, br, e.url, "/purchases?status=ACT", e.newUser(e.id(1), "viewer"))
	viewer.waitFor(t, "the filtered purchases", `location.search === '?status=ACT' && results().length > 0`, `location.href`)

	list := e.walkFull("status=ACT&order=desc", e.ro)
	menu := chromedp.CSS(`#results details[data-export] > summary`)

	file := viewer.download(t, "export one row per purchase",
		chromedp.Click(menu),
		chromedp.Click(chromedp.CSS(`#results a[data-export-rows=purchases]`)))
	header, recs := readCSV(t, file)
	if header[0] != "id" || len(header) != 20 {
		t.Fatalf("got header row %q", header)
	}
	sameRows(t, "the downloaded file", header, recs, e.wantPurchaseRows(list, false))

	file = viewer.download(t, "export one row per line item",
		chromedp.Click(chromedp.CSS(`#results a[data-export-rows=line_items]`)))
	header, recs = readCSV(t, file)
	if len(header) != 27 || header[18] != "line_item_id" {
		t.Fatalf("got line-item header row %q", header)
	}
	sameRows(t, "the downloaded line-item file", header, recs, e.wantPurchaseRows(list, true))
	// The API request disclosure opens and shows the command.
	viewer.do(t, "open API request", chromedp.Click(chromedp.CSS(`#api-request > summary`)))
	viewer.waitFor(t, "the curl command", `document.querySelector('#api-request').open && text(document.querySelector('#api-request-list')).startsWith('curl -u `+e.user+`:')`, `text(document.querySelector('#api-request'))`)
	viewer.checkConsole(t)
}
