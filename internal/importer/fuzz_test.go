package importer

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"storefront/internal/shop"
)

// errFuzzRead is the failure of the reader that breaks off.
var errFuzzRead = errors.New("fuzz: the reader broke off")

// breakingReader returns the document up to n bytes, then errFuzzRead.
type breakingReader struct {
	r io.Reader
	n int
}

func (b *breakingReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, errFuzzRead
	}
	if len(p) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= n
	return n, err
}

// FuzzRun feeds arbitrary documents to the importer, whole or with the reader
// breaking off after cut bytes (cut 0: whole). It must never panic; a document it
// refuses is a *shop.Error (invalid_parameter, with a message) or, when the reader
// broke off, an error wrapping the read error; a refused import is rolled back and
// an accepted one committed.
//
//	go test -run XXX -fuzz=FuzzRun -fuzztime=5m ./internal/importer
func FuzzRun(f *testing.F) {
	if full, err := os.ReadFile("../mysql/testdata/import/full.json"); err == nil {
		f.Add(full, uint16(0))
		f.Add(full, uint16(700))
	} else {
		f.Fatal(err)
	}
	sub := `{"id":4,"status":"PAST_DUE","price":"1.250","period":1,"unit":"M","tax_amount":"0.000","trial_price":null,` +
		`"trial_period":null,"trial_unit":null,"trial_tax_amount":null,"created_at":1,"updated_at":1,"started_at":null,"ended_at":null,` +
		`"trial_started_at":null,"last_payment_at":null,"next_payment_at":null}`
	for _, doc := range []string{
		subscriberDoc(sub), subscriberDoc("null"), subscriberDoc(`{"id":-1}`), head + `"subscribers":[],"purchases":[]}`,
		"", "{}", "[]", "null", `{"accounts":[{"id":1e400}]}`, `{"accounts":{}}`, `{"purchases":[{}]}`, `{"accounts":[` + strings.Repeat("[", 10000),
		`{"accounts":[{"id":1,"name":"\ud800","api_username":"a","timezone":"Mars/Olympus"}]}`, "{\"accounts\":[{\"id\":1,\"name\":\"\xff\"}]}",
		`{"accounts":[{"id":1,"name":"<script>alert(1)</script>","api_username":"' OR 1=1 --","timezone":"UTC"}]}`,
	} {
		f.Add([]byte(doc), uint16(0))
	}
	f.Fuzz(func(t *testing.T, doc []byte, cut uint16) {
		m := newMemTx()
		var r io.Reader = bytes.NewReader(doc)
		if cut > 0 {
			r = &breakingReader{r: r, n: int(cut)}
		}
		_, err := Run(context.Background(), m, r, nil)
		if err == nil {
			if !m.committed {
				t.Fatal("accepted without a commit")
			}
			return
		}
		if m.committed || !m.rolledBack {
			t.Fatalf("refused (%v), but committed %v, rolled back %v", err, m.committed, m.rolledBack)
		}
		if cut > 0 && errors.Is(err, errFuzzRead) {
			return
		}
		var se *shop.Error
		if !errors.As(err, &se) || se.Code != shop.EInvalid || strings.TrimSpace(se.Message) == "" {
			t.Fatalf("got %T %v, want an invalid_parameter *shop.Error with a message", err, err)
		}
	})
}
