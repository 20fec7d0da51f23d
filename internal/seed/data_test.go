package seed

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseCatalogs(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		got := parseCatalogs("# a comment\ncatalog\nproduct\tA, \"B\" — C\t4900\tfalse\ttrue\t10\nplan\tMonthly\t1200\t1\tM\t0\t14\tD\nplan\tYearly\t9900\t1\tY\t0\t0\t-\n\ncatalog\n")
		if len(got) != 2 || len(got[0].products) != 1 || len(got[0].plans) != 2 || len(got[1].products) != 0 {
			t.Fatalf("got %+v, want two catalogs, the first with a product and two plans", got)
		}
		if p := got[0].products[0]; p != (product{"A, \"B\" — C", 4900, false, true, 10}) {
			t.Errorf("got %+v, want the product's fields", p)
		}
		if p := got[0].plans[1]; p != (plan{"Yearly", 9900, 1, "Y", 0, 0, ""}) {
			t.Errorf("got %+v, want a plan without trial", p)
		}
	})
	for name, text := range map[string]string{
		"ErrNumber":      "catalog\nproduct\tA\t49.00\tfalse\ttrue\t10\n",
		"ErrFieldCount":  "catalog\nproduct\tA\t4900\tfalse\ttrue\n",
		"ErrNoCatalog":   "product\tA\t4900\tfalse\ttrue\t10\n",
		"ErrUnknownKind": "catalog\nbundle\tA\t4900\n",
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "catalogs.tsv:") {
					t.Errorf("got %v, want a panic naming the line", r)
				}
			}()
			parseCatalogs(text)
		})
	}
}

func TestParseCountries(t *testing.T) {
	got := parseCountries("country\tGB\tUnited Kingdom\t+44 7### ######\t2000\t7\ncity\tLondon\t-\tSW# #AA\nstreets\tHigh Street\tStation Road\ncarriers\tRoyal Mail\n")
	want := country{code: "GB", name: "United Kingdom", phone: "+44 7### ######", tax: 2000, weight: 7,
		cities: []city{{"London", "", "SW# #AA"}}, streets: []string{"High Street", "Station Road"}, carriers: []string{"Royal Mail"}}
	if len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
