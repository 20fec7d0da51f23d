package search

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"storefront/internal/shop"
)

// readDoc returns docs/SEARCH.md split into its "## " sections by title.
func readDoc(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/SEARCH.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	title := ""
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			title = strings.TrimSpace(line[3:])
		}
		sections[title] += line
	}
	return sections
}

// tableRows returns the cells of the table rows of text whose first cell starts with
// prefix, backticks around cells removed.
func tableRows(text, prefix string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| "+prefix) {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
			c = strings.TrimSpace(c)
			if strings.HasPrefix(c, "`") && strings.HasSuffix(c, "`") && len(c) >= 2 {
				c = c[1 : len(c)-1]
			}
			cells = append(cells, c)
		}
		rows = append(rows, cells)
	}
	return rows
}

func TestDocs_Examples(t *testing.T) {
	doc := readDoc(t)
	ex := doc["Examples"]
	i := strings.Index(ex, "### Subscribers")
	if i < 0 {
		t.Fatal("docs/SEARCH.md: no ### Subscribers under ## Examples")
	}
	for _, part := range []struct {
		kind Kind
		text string
	}{{Purchases, ex[:i]}, {Subscribers, ex[i:]}} {
		rows := tableRows(part.text, "`")
		if len(rows) < 10 {
			t.Fatalf("%s examples: got %d, want at least 10", part.kind, len(rows))
		}
		for _, row := range rows {
			q, err := Parse(part.kind, row[0])
			if err != nil {
				t.Errorf("%s example %s: %v", part.kind, row[0], shop.ErrorMessage(err))
				continue
			}
			if _, err := q.Resolve(testNow, paris); err != nil {
				t.Errorf("%s example %s: %v", part.kind, row[0], shop.ErrorMessage(err))
			}
		}
	}
}

func TestDocs_Errors(t *testing.T) {
	rows := append(tableRows(readDoc(t)["Errors"], "purchases |"), tableRows(readDoc(t)["Errors"], "subscribers |")...)
	if len(rows) < 10 {
		t.Fatalf("got %d error examples, want at least 10", len(rows))
	}
	for _, row := range rows {
		kind := Purchases
		if row[0] == "subscribers" {
			kind = Subscribers
		}
		_, err := Parse(kind, row[1])
		if got := shop.ErrorMessage(err); err == nil || got != row[2] {
			t.Errorf("%s: got %v, want %s", row[1], err, row[2])
		}
	}
}

var quotedTerm = regexp.MustCompile(`"([^"]*)"`)

// ebnfRule returns the quoted terminals of one rule of the grammar block.
func ebnfRule(t *testing.T, grammar, name string) []string {
	t.Helper()
	i := strings.Index(grammar, "\n"+name+" ")
	if i < 0 {
		t.Fatalf("docs/SEARCH.md: no rule %s in the grammar", name)
	}
	rule := grammar[i+1:]
	rule = rule[:strings.Index(rule, ";")]
	var out []string
	for _, m := range quotedTerm.FindAllStringSubmatch(rule, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestDocs_Grammar(t *testing.T) {
	doc := readDoc(t)
	g := doc["Grammar"]
	g = g[strings.Index(g, "```ebnf"):]
	g = g[:strings.Index(g[3:], "```")+3]
	names := func(k Kind) []string {
		var s []string
		for _, f := range Fields(k) {
			s = append(s, string(f.Name))
		}
		return s
	}
	var pst, sst []string
	for _, s := range shop.PurchaseStatuses {
		pst = append(pst, string(s))
	}
	for _, s := range shop.SubscriptionStatuses {
		sst = append(sst, string(s))
	}
	for _, tt := range []struct {
		rule string
		want []string
	}{
		{"purchase_field", names(Purchases)},
		{"subscriber_field", names(Subscribers)},
		{"operator", Operators},
		{"purchase_status", pst},
		{"subscription_status", sst},
	} {
		if got := ebnfRule(t, g, tt.rule); !slices.Equal(got, tt.want) {
			t.Errorf("grammar rule %s: got %q, want %q", tt.rule, got, tt.want)
		}
	}
	// The field tables list the same fields.
	for _, tt := range []struct {
		kind  Kind
		title string
	}{{Purchases, "| Field (purchases)"}, {Subscribers, "| Field (subscribers)"}} {
		text := doc["Fields"]
		text = text[strings.Index(text, tt.title):]
		if end := strings.Index(text, "\n\n"); end > 0 {
			text = text[:end]
		}
		var got []string
		for _, row := range tableRows(text, "`") {
			for _, n := range strings.Split(row[0], ", ") {
				got = append(got, strings.Trim(n, "`"))
			}
		}
		if !slices.Equal(got, names(tt.kind)) {
			t.Errorf("%s table: got %q, want %q", tt.kind, got, names(tt.kind))
		}
	}
}
