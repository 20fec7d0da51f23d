package web

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// csvCells are cells that encoding/csv quotes or escapes in every way it has.
var csvCells = []string{"", "plain", "a,b", `say "hi"`, "line\nbreak", "cr\rlf\r\n", `\.`, `\.x`, " lead", "\tlead", "\u00a0nbsp",
	"\u2003em", "é", "=1+2", "+x", "-3", "@sum", "\rx", "'", `""`, "\n", "tail ", "\xff"}

// TestCSVRecords_AsEncodingCSV: every cell and every spreadsheet-safe cell is written
// byte for byte as encoding/csv with UseCRLF writes it.
func TestCSVRecords_AsEncodingCSV(t *testing.T) {
	for _, s := range csvCells {
		checkCSVCell(t, s)
	}
}

func FuzzCSVRecords_AsEncodingCSV(f *testing.F) {
	for _, s := range csvCells {
		f.Add(s)
	}
	f.Fuzz(checkCSVCell)
}

func checkCSVCell(t *testing.T, s string) {
	safe := s
	if formulaStart(s) {
		safe = "'" + s
	}
	var want bytes.Buffer
	w := csv.NewWriter(&want)
	w.UseCRLF = true
	_ = w.Write([]string{s, safe, s})
	w.Flush()
	var r csvRecords
	r.text(s)
	r.safeText(s)
	r.text(s)
	r.end()
	if got := string(r.b); got != want.String() {
		t.Errorf("cell %q: got %q, want %q", s, got, want.String())
	}
	var fromBytes, fromText csvRecords
	fromBytes.safeBytes([]byte(s))
	fromText.safeText(s)
	if !bytes.Equal(fromBytes.b, fromText.b) {
		t.Errorf("cell %q: safeBytes %q, safeText %q", s, fromBytes.b, fromText.b)
	}
}
