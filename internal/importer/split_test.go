package importer

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// collect runs split and returns the records per kind and the error, if any.
func collect(r io.Reader, size int) (map[string][]string, error) {
	out := map[string][]string{}
	var err error
	split(r, size, func(c *chunk) bool {
		for i, raw := range c.raws {
			if c.first+i != len(out[c.kind]) {
				err = errors.New("chunk out of order")
				return false
			}
			out[c.kind] = append(out[c.kind], string(raw))
		}
		if c.err != nil {
			err = c.err
		}
		return true
	})
	return out, err
}

func TestSplit(t *testing.T) {
	doc := " {\n \"accounts\" : [ ] ,\"purchases\":[{\"a\":\"x]}\\\"{\"},\n{\"b\":[1,{\"c\":null}]} ,17,\"s\\\\\",null\t],\"subscribers\":[{}]}\n "
	want := map[string][]string{
		"purchases":   {`{"a":"x]}\"{"}`, `{"b":[1,{"c":null}]}`, `17`, `"s\\"`, `null`},
		"subscribers": {`{}`},
	}
	for _, tc := range []struct {
		name string
		r    io.Reader
		size int
	}{
		{"Whole", strings.NewReader(doc), 64},
		{"OneByteReads", iotest.OneByteReader(strings.NewReader(doc)), 2},
		{"DataWithEOF", iotest.DataErrReader(strings.NewReader(doc)), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := collect(tc.r, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range want {
				if strings.Join(got[k], "|") != strings.Join(w, "|") {
					t.Errorf("%s: got %q, want %q", k, got[k], w)
				}
			}
		})
	}

	errTests := []struct {
		name, doc, want string
	}{
		{"Empty", "", "the document: the document ends early"},
		{"NotAnObject", "[]", "the document: expected an object"},
		{"MissingComma", `{"purchases":[{} {}]}`, "purchases[1]: expected ',' or ']'"},
		{"UnterminatedString", `{"purchases":[{"a":"b}]}`, "purchases[0]: the document ends early"},
		{"MissingColon", `{"purchases" []}`, "expected ':'"},
		{"Trailing", `{"purchases":[]}x`, "unexpected data after the end of the document"},
		{"UnknownKey", `{"orders":[]}`, `unknown top-level key "orders"`},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := collect(strings.NewReader(tt.doc), 64)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}

	t.Run("ReadError", func(t *testing.T) {
		boom := errors.New("disk on fire")
		_, err := collect(io.MultiReader(strings.NewReader(`{"purchases":[{}`), iotest.ErrReader(boom)), 64)
		if !errors.Is(err, boom) {
			t.Fatalf("got %v, want %v", err, boom)
		}
	})
}
