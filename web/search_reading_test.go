package web

import (
	"strings"
	"testing"
	"time"

	"storefront/internal/search"
)

// wordValues reads a bare word as the fields of a small account: "acme" as its e-mail
// domain, "refunded" as a status, "pixel grotesk" as a product, and dates as created.
func wordValues(now time.Time, loc *time.Location) suggester {
	return func(field search.Field, prefix, part string, add func(value, label, kind string)) error {
		if field == search.FieldStatus && strings.HasPrefix("refunded", part) {
			add(prefix+"RFD ", "RFD · Refunded", "status")
		}
		if field != bareWord {
			return nil
		}
		switch {
		case strings.HasPrefix("refunded", part) && len(part) >= 3:
			add(prefix+"status:RFD ", "status:RFD · Refunded", "status")
		case part == "acme":
			add(prefix+"domain:acme.io ", "domain:acme.io", "domain")
		case strings.HasPrefix("pixel grotesk", part) && strings.Contains(part, " "):
			add(prefix+"product:3 ", "product:3 · Pixel Grotesk", "product")
		}
		dateSuggestion(search.FieldCreated, now, loc, prefix, part, add)
		return nil
	}
}

func TestReading(t *testing.T) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	values := wordValues(time.Date(2026, 11, 28, 10, 30, 0, 0, loc), loc)
	for _, tt := range []struct{ q, want string }{
		{"acme", "domain:acme.io"},
		{"acme last week not refunded", `domain:acme.io created>="last week" -status:RFD`},
		{"the acme order since last monday, not refunded", `domain:acme.io created>="last monday" -status:RFD`},
		{"Acme NOT refunded", "domain:acme.io NOT status:RFD"},
		{"hina acme", "hina domain:acme.io"},
		{"status:ACT pixel grotesk before 2026-11-01", "status:ACT product:3 created<2026-11-01"},
		{"-acme yesterday", "-domain:acme.io created:yesterday"},
		{"jurgen not zz", ""},
		{"jurgen", ""},
		{"the", ""},
		{"42 acme", "42 domain:acme.io"},
		{`"acme" refunded`, ""},
		{"acme OR refunded", ""},
		{"(acme refunded)", ""},
		{strings.Repeat("x ", maxReadWords) + "acme", ""},
		// A clause refused for its value, read as the value meant.
		{"status:refunded acme", "status:RFD domain:acme.io"},
		{"-status:Refu", "-status:RFD"},
		{"customer:ann@acme.io", "email:ann@acme.io"},
		{"-subscriber:ann@acme.io yesterday", "-email:ann@acme.io created:yesterday"},
		{"status:nope", ""},
		{"status:RFD,nope", ""},
		{"customer:42 acme", "customer:42 domain:acme.io"},
	} {
		got, bare, err := readWords(search.Purchases, tt.q, values)
		want := 0 // the words that stand for nothing: names, an id
		for _, w := range strings.Fields(tt.q) {
			if w == "jurgen" || w == "hina" || w == "42" {
				want++
			}
		}
		if got != "" && bare != want {
			t.Errorf("readWords(%q): %d bare words, want %d", tt.q, bare, want)
		}
		if err != nil || got != tt.want {
			t.Errorf("reading(%q) = %q, %v; want %q", tt.q, got, err, tt.want)
		}
		if got != "" {
			if _, err := search.Parse(search.Purchases, got); err != nil {
				t.Errorf("reading(%q) = %q does not read: %v", tt.q, got, err)
			}
		}
	}
}

func TestDateSuggestion(t *testing.T) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 10, 30, 0, 0, loc) // a Saturday
	for _, tt := range []struct{ part, value, label string }{
		{"yesterday", "created:yesterday ", "created:yesterday · Fri 27 Nov 2026"},
		{"today", "created:today ", "created:today · Sat 28 Nov 2026"},
		{"2026-11-01", "created:2026-11-01 ", "created:2026-11-01 · Sun 1 Nov 2026"},
		{"last monday", `created:"last monday" `, `created:"last monday" · Mon 23 Nov 2026`},
		{"2 weeks ago", `created>="2 weeks ago" `, `created>="2 weeks ago" · since Sat 14 Nov 2026 10:30 EST`},
		{"since last monday", `created>="last monday" `, `created>="last monday" · since Mon 23 Nov 2026`},
		{"from 2026-03-08", "created>=2026-03-08 ", "created>=2026-03-08 · since Sun 8 Mar 2026"},
		{"after yesterday", "created>yesterday ", "created>yesterday · after Fri 27 Nov 2026"},
		{"before 2026-11-01", "created<2026-11-01 ", "created<2026-11-01 · before Sun 1 Nov 2026"},
		{"until 2026-11-01", "created<=2026-11-01 ", "created<=2026-11-01 · through Sun 1 Nov 2026"},
		{"until 2026-07-04 12:00", `created<="2026-07-04 12:00" `, `created<="2026-07-04 12:00" · until Sat 4 Jul 2026 12:00 EDT`},
		// Not dates: a letter is a military time zone to strtotime(), a month's or
		// weekday's name a day of the wrong month or week, a number an id.
		{"a", "", ""}, {"z", "", ""}, {"may", "", ""}, {"friday", "", ""}, {"2026", "", ""},
		{"since", "", ""}, {"jurgen anderson", "", ""}, {"before acme", "", ""},
	} {
		var got []string
		dateSuggestion(search.FieldCreated, now, loc, "", tt.part, func(value, label, _ string) { got = append(got, value, label) })
		if tt.value == "" {
			if len(got) != 0 {
				t.Errorf("%q: got %q, want no date", tt.part, got)
			}
			continue
		}
		if len(got) != 2 || got[0] != tt.value || got[1] != tt.label {
			t.Errorf("%q: got %q, want %q, %q", tt.part, got, tt.value, tt.label)
		}
	}
}

func TestBareRunsNot(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []bareRun
	}{
		{"acme not refunded", []bareRun{{head: "acme ", neg: "-", words: "refunded"}}},
		{"Not pixel gro", []bareRun{{head: "", neg: "-", words: "pixel gro"}, {head: "Not pixel ", words: "gro"}}},
		{"NOT refunded", []bareRun{{head: "NOT ", words: "refunded"}}},
		{"not -refunded", []bareRun{{head: "not ", neg: "-", words: "refunded"}}},
		{"acme not", []bareRun{{head: "", words: "acme not"}, {head: "acme ", words: "not"}}},
	} {
		got := bareRuns(tt.text, maxBareRun)
		if len(got) != len(tt.want) {
			t.Errorf("bareRuns(%q) = %+v, want %+v", tt.text, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("bareRuns(%q) = %+v, want %+v", tt.text, got, tt.want)
				break
			}
		}
	}
}

func TestPastedAddresses(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{`"Jürgen Anderson" <jurgen_anderson@acme.io>`, "email:jurgen_anderson@acme.io"},
		{`Jürgen Anderson <jurgen_anderson@acme.io>`, "email:jurgen_anderson@acme.io"},
		{`<ann@acme.io>, Bo <bo@b.co>, <ANN@acme.io>, <ann@acme.io>`, "email:ann@acme.io,bo@b.co"},
		{`mailto:ann@acme.io?subject=Refund`, "email:ann@acme.io"},
		{`MAILTO:ann@acme.io,`, "email:ann@acme.io"},
		{`ann@acme.io`, ""},
		{`total>5 <ann`, ""},
		{`<a@b@c>`, ""},
		{`status:ACT`, ""},
	} {
		if got := pastedAddresses(tt.text); got != tt.want {
			t.Errorf("pastedAddresses(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if tt.want != "" {
			if _, err := search.Parse(search.Purchases, tt.want); err != nil {
				t.Errorf("%q does not read: %v", tt.want, err)
			}
		}
	}
}
