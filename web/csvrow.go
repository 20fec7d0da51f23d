package web

import (
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// csvRecords builds the records of an export in one reused buffer, cell by cell, byte
// for byte as encoding/csv's Writer with UseCRLF writes them (RFC 4180: a cell is quoted
// when it holds a comma, a quote or a line break, is `\.`, or begins with a space; its
// quotes are doubled and its line breaks written as CRLF), without a string per cell
// and a []string per record.
type csvRecords struct {
	b []byte
	// open is true inside a record, after its first cell.
	open bool
}

// sep starts a cell.
func (r *csvRecords) sep() {
	if r.open {
		r.b = append(r.b, ',')
	}
	r.open = true
}

// end ends the record.
func (r *csvRecords) end() {
	r.b = append(r.b, '\r', '\n')
	r.open = false
}

// record adds a whole record.
func (r *csvRecords) record(cells []string) {
	for _, s := range cells {
		r.text(s)
	}
	r.end()
}

// text adds a cell as it is.
func (r *csvRecords) text(s string) { r.sep(); r.b = appendCSVCell(r.b, "", s) }

// safeText adds a text cell that a spreadsheet must not read as a formula: text that
// begins with =, +, -, @, a tab or a carriage return is written after a '.
func (r *csvRecords) safeText(s string) { safeCell(r, s) }

// safeBytes is safeText for text in a byte slice.
func (r *csvRecords) safeBytes(s []byte) { safeCell(r, s) }

func safeCell[T string | []byte](r *csvRecords, s T) {
	r.sep()
	if formulaStart(s) {
		r.b = appendCSVCell(r.b, "'", s)
		return
	}
	r.b = appendCSVCell(r.b, "", s)
}

// int adds an integer cell.
func (r *csvRecords) int(n int64) { r.sep(); r.b = strconv.AppendInt(r.b, n, 10) }

// optInt adds an integer cell, empty for nil.
func (r *csvRecords) optInt(n *int64) {
	if n == nil {
		r.sep()
		return
	}
	r.int(*n)
}

// time adds a time cell in the csvTime layout (which never needs quotes).
func (r *csvRecords) time(t time.Time, loc *time.Location) {
	r.sep()
	r.b = t.In(loc).AppendFormat(r.b, csvTime)
}

// empty adds n empty cells.
func (r *csvRecords) empty(n int) {
	for range n {
		r.sep()
	}
}

// formulaStart reports whether a spreadsheet could read text as a formula.
func formulaStart[T string | []byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// appendCSVCell appends the cell prefix+s, quoted as encoding/csv quotes it. prefix is
// "" or "'", which changes neither whether the cell needs quotes nor how it is escaped
// (it is not a space and never the whole of `\.`).
func appendCSVCell[T string | []byte](b []byte, prefix string, s T) []byte {
	if !cellNeedsQuotes(prefix, s) {
		b = append(b, prefix...)
		return append(b, s...)
	}
	b = append(b, '"')
	b = append(b, prefix...)
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '"' && s[i] != '\r' && s[i] != '\n' {
			i++
		}
		b = append(b, s[:i]...)
		s = s[i:]
		if len(s) > 0 {
			switch s[0] {
			case '"':
				b = append(b, '"', '"')
			case '\r':
				// As encoding/csv with UseCRLF: a lone CR is dropped, LF becomes CRLF.
			case '\n':
				b = append(b, '\r', '\n')
			}
			s = s[1:]
		}
	}
	return append(b, '"')
}

// cellNeedsQuotes is encoding/csv's rule for the cell prefix+s with a comma separator.
func cellNeedsQuotes[T string | []byte](prefix string, s T) bool {
	if prefix == "" {
		if len(s) == 0 {
			return false
		}
		if len(s) == 2 && s[0] == '\\' && s[1] == '.' {
			return true
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n', '\r', '"', ',':
			return true
		}
	}
	if prefix != "" {
		return false
	}
	if c := s[0]; c < utf8.RuneSelf {
		return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
	}
	var first [utf8.UTFMax]byte
	r1, _ := utf8.DecodeRune(first[:copy(first[:], s)])
	return unicode.IsSpace(r1)
}
