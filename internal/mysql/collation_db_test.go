package mysql_test

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode"

	"storefront/internal/dbtest"
	"storefront/internal/search"
)

var updateCollation = flag.Bool("update-collation", false, "rewrite internal/search/unicode_ci.bin from the test server's weights")

// TestCollation_Weights checks the search package's weights of every character from
// U+0000 to U+FFFF, and of some above, against the server's WEIGHT_STRING under
// utf8mb4_unicode_ci, the collation of every text column. With -update-collation it
// rewrites the package's table from the server first.
func TestCollation_Weights(t *testing.T) {
	db := dbtest.New(t)
	rows, err := db.Query("SELECT seq, WEIGHT_STRING(CONVERT(CHAR(seq USING utf32) USING utf8mb4) COLLATE utf8mb4_unicode_ci) FROM seq_0_to_65535 ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	server := make([][]byte, 0, 0x10000)
	for rows.Next() {
		var r int
		var w []byte
		if err := rows.Scan(&r, &w); err != nil {
			t.Fatal(err)
		}
		server = append(server, w)
	}
	if err := rows.Err(); err != nil || len(server) != 0x10000 {
		t.Fatalf("read %d weights: %v", len(server), err)
	}
	if *updateCollation {
		if err := os.WriteFile("../search/unicode_ci.bin", encodeWeights(t, server), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("rewrote ../search/unicode_ci.bin: run the tests again without -update-collation")
	}
	bad := 0
	for r, w := range server {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates are no characters of a Go string
		}
		if got := search.WeightString(string(rune(r))); !bytes.Equal(got, w) {
			if bad++; bad <= 20 {
				t.Errorf("%U %q: weights %X, the server's %X", r, rune(r), got, w)
			}
		}
	}
	for _, s := range []string{"😀", "𐐀x", "Straße ", "Œuvre", "e\u0301", "ﬁ一⼀"} {
		var w []byte
		if err := db.QueryRow("SELECT WEIGHT_STRING(? COLLATE utf8mb4_unicode_ci)", s).Scan(&w); err != nil {
			t.Fatal(err)
		}
		if got := search.WeightString(s); !bytes.Equal(got, w) {
			t.Errorf("%q: weights %X, the server's %X", s, got, w)
		}
	}
	if bad > 0 {
		t.Errorf("%d characters weigh otherwise than on the server (rewrite the table with -update-collation)", bad)
	}
}

// encodeWeights writes the weights of U+0000 to U+FFFF in the format of
// internal/search/collation.go's unicodeCI.
func encodeWeights(t *testing.T, server [][]byte) []byte {
	var raw bytes.Buffer
	var last []uint16
	for _, b := range server {
		raw.WriteByte(byte(len(b) / 2))
		var ws []uint16
		for i := 0; i+1 < len(b); i += 2 {
			w := binary.BigEndian.Uint16(b[i:])
			ws = append(ws, w)
			d := w
			if len(ws) <= len(last) {
				d -= last[len(ws)-1]
			}
			_ = binary.Write(&raw, binary.BigEndian, d)
		}
		if len(ws) > 0 {
			last = ws
		}
	}
	var out bytes.Buffer
	zw, err := flate.NewWriter(&out, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// collationChars are the characters the comparison test builds texts of: letters that
// fold to others or expand (ß, œ, ﬁ, Ｓ), letters that fold to nothing else in
// utf8mb4_unicode_ci (ø, ł, ı, æ), combining and invisible characters, characters above
// U+FFFF and without weights of their own, LIKE's wildcards and the escape.
var collationChars = []rune("aAàÁeE\u0301\u0308sSßẞoOøØœŒiIıİlłLæÆﬁfFzZ%_\\@＠Ｓ😀😃𐐀𐐨一⼀\u0378\u00AD\u200B .-ςσΣҐгёеǅǆǄ\t")

// TestCollation_LikeAndEqual compares the search package's text comparisons with the
// server's on random texts: HasPrefixFold with LIKE 'p%', LikeFold with LIKE 'p'
// (the pattern escaped as the list filters escape it) and EqualFold with "=" of the two
// texts each followed by a mark (so that trailing blanks count).
func TestCollation_LikeAndEqual(t *testing.T) {
	db := dbtest.New(t)
	r := rand.New(rand.NewPCG(24, 7))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteRune(collationChars[r.IntN(len(collationChars))])
		}
		return b.String()
	}
	// like writes a text that often matches s: its runes in other letter cases, some
	// replaced by random characters.
	like := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			switch r.IntN(6) {
			case 0:
				c = unicode.ToUpper(c)
			case 1:
				c = unicode.ToLower(c)
			case 2:
				c = collationChars[r.IntN(len(collationChars))]
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	type pair struct{ s, p string }
	var pairs []pair
	for range 3000 {
		s := text(r.IntN(6))
		rs := []rune(s)
		var p string
		switch r.IntN(4) {
		case 0:
			p = text(1 + r.IntN(3))
		case 1:
			p = like(string(rs[:r.IntN(len(rs)+1)]))
		case 2:
			p = like(string(rs[r.IntN(len(rs)+1):]))
		default:
			p = like(s)
		}
		pairs = append(pairs, pair{s, p})
	}
	ctx := context.Background()
	escape := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace
	counts := map[string]int{}
	for start := 0; start < len(pairs); start += 300 {
		batch := pairs[start:min(len(pairs), start+300)]
		var sel []string
		var args []any
		for _, p := range batch {
			sel = append(sel, "SELECT ? COLLATE utf8mb4_unicode_ci LIKE ?, ? COLLATE utf8mb4_unicode_ci LIKE ?, CONCAT(?, '.') COLLATE utf8mb4_unicode_ci = CONCAT(?, '.')")
			args = append(args, p.s, escape(p.p)+"%", p.s, escape(p.p), p.s, p.p)
		}
		q := strings.Join(sel, " UNION ALL ")
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for rows.Next() {
			var prefix, like, equal bool
			if err := rows.Scan(&prefix, &like, &equal); err != nil {
				t.Fatal(err)
			}
			p := batch[i]
			i++
			for _, c := range []struct {
				name      string
				got, want bool
			}{
				{"prefix", search.HasPrefixFold(p.s, p.p), prefix},
				{"like", search.LikeFold(p.s, p.p), like},
				{"equal", search.EqualFold(p.s, p.p), equal},
			} {
				if c.want {
					counts[c.name]++
				}
				if c.got != c.want {
					t.Errorf("%+q and %+q: %s %v, the server says %v", p.s, p.p, c.name, c.got, c.want)
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if i != len(batch) {
			t.Fatalf("read %d rows of %d", i, len(batch))
		}
	}
	// The texts match often enough for the comparison to mean something.
	for _, k := range []string{"prefix", "like", "equal"} {
		if counts[k] < 200 {
			t.Errorf("only %d of %d pairs match by %s", counts[k], len(pairs), k)
		}
	}
	t.Log(fmt.Sprint(counts))
}
