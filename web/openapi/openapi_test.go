package openapi_test

import (
	"strings"
	"testing"

	"storefront/web/openapi"
)

func TestParse(t *testing.T) {
	doc, err := openapi.Parse(openapi.Document())
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Paths.Keys) == 0 || doc.Paths.Keys[0] != "/" {
		t.Fatalf("got paths %v, want them in the document's order, / first", doc.Paths.Keys)
	}
	t.Run("ErrUnresolvedRef", func(t *testing.T) {
		doc, err := openapi.Parse([]byte(`{"openapi":"3.1.0","paths":{},"components":{"parameters":{"a":{"name":"a"}}}}`))
		if err != nil {
			t.Fatal(err)
		}
		if p, err := doc.Param(&openapi.Param{Ref: "#/components/parameters/a"}); err != nil || p.Name != "a" {
			t.Fatalf("got %v, %v, want parameter a", p, err)
		}
		for _, ref := range []string{"#/components/parameters/b", "#/components/schemas/a"} {
			if _, err := doc.Param(&openapi.Param{Ref: ref}); err == nil || !strings.Contains(err.Error(), ref) {
				t.Errorf("%s: got %v, want an unresolved $ref error", ref, err)
			}
		}
	})
}

func TestView(t *testing.T) {
	v, err := openapi.View()
	if err != nil {
		t.Fatal(err)
	}
	if v.Title == "" || len(v.Servers) != 1 {
		t.Fatalf("got title %q and servers %v, want the document's", v.Title, v.Servers)
	}
}
