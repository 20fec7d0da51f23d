package search

import (
	"bytes"
	"compress/flate"
	_ "embed"
	"encoding/binary"
	"io"
	"slices"
	"sync"
	"unicode/utf8"
)

// This file compares text as MariaDB compares the text columns, all of which use
// utf8mb4_unicode_ci (UCA 4.0.0, primary level: letter case and accents ignored):
//
//   - "=" compares the two texts' weight strings (WeightString), so "Straße" = "strasse",
//     "Œuvre" = "oeuvre" and a combining accent (an ignorable character) counts for
//     nothing; every character above U+FFFF weighs the same.
//   - LIKE compares character by character, each character of the pattern with one of
//     the text by its own weights, so "Straße" LIKE 'strasse%' is false while
//     "Straße" LIKE 'STRAß%' is true; characters above U+FFFF and those without weights
//     of their own in UCA 4.0.0 match only themselves.
//
// The weights are MariaDB's, read from it into unicodeCI (internal/mysql's
// TestCollation_Weights checks every one against the server and rewrites the file with
// -update-collation).

// unicodeCI holds the primary weights of U+0000 to U+FFFF, DEFLATE-compressed: for each
// code point in order, one byte n, then n big-endian 16-bit values, each the weight at
// its place minus the weight at the same place of the last code point that had weights
// (0 where that one had fewer), modulo 2^16.
//
//go:embed unicode_ci.bin
var unicodeCI []byte

// ucaTable is unicodeCI read: the weights of code point r are w[off[r]:off[r+1]].
type ucaTable struct {
	off []uint32
	w   []uint16
}

var uca = sync.OnceValue(func() *ucaTable {
	b, err := io.ReadAll(flate.NewReader(bytes.NewReader(unicodeCI)))
	if err != nil {
		panic("search: unicode_ci.bin: " + err.Error())
	}
	t := &ucaTable{off: make([]uint32, 0x10001)}
	var last []uint16
	for r := 0; r <= 0xFFFF; r++ {
		n := int(b[0])
		b = b[1:]
		start := len(t.w)
		for i := range n {
			d := binary.BigEndian.Uint16(b[2*i:])
			if i < len(last) {
				d += last[i]
			}
			t.w = append(t.w, d)
		}
		b = b[2*n:]
		if n > 0 {
			last = t.w[start:]
		}
		t.off[r+1] = uint32(len(t.w))
	}
	return t
})

// supplementary is the weight of every character above U+FFFF.
const supplementary = 0xFFFD

// weights returns the primary weights of one character.
func weights(r rune) []uint16 {
	if r > 0xFFFF || r < 0 {
		return []uint16{supplementary}
	}
	t := uca()
	return t.w[t.off[r]:t.off[r+1]]
}

// implicit reports whether a character's weights are UCA's implicit ones, derived from
// its own code point (CJK ideographs, characters UCA 4.0.0 did not know): such a
// character has no weights of its own, and LIKE matches it only with itself.
func implicit(r rune, w []uint16) bool {
	return len(w) == 2 && w[0] >= 0xFB40 && w[0] <= 0xFBC1 && w[1] == uint16(r&0x7FFF|0x8000)
}

// WeightString returns the weight string MariaDB computes for s under
// utf8mb4_unicode_ci: WEIGHT_STRING(s COLLATE utf8mb4_unicode_ci), trailing blanks
// included.
func WeightString(s string) []byte {
	var out []byte
	for _, r := range s {
		for _, w := range weights(r) {
			out = binary.BigEndian.AppendUint16(out, w)
		}
	}
	return out
}

// sameChar reports whether LIKE takes the character a of a text for the character b
// of a pattern.
func sameChar(a, b rune) bool {
	if a == b {
		return true
	}
	wa, wb := weights(a), weights(b)
	if a > 0xFFFF || b > 0xFFFF || implicit(a, wa) || implicit(b, wb) {
		return false
	}
	return slices.Equal(wa, wb)
}

// likeRunes reports whether the runes of s from i on match p character by character.
func likeRunes(s []rune, p string) bool {
	i := 0
	for _, r := range p {
		if i >= len(s) || !sameChar(s[i], r) {
			return false
		}
		i++
	}
	return true
}

// HasPrefixFold reports whether s starts with prefix as MariaDB's LIKE reads it with
// the prefix escaped: `s LIKE 'prefix%'` under utf8mb4_unicode_ci. The prefix is
// literal: "%", "_" and "\" match only themselves.
func HasPrefixFold(s, prefix string) bool {
	return likeRunes([]rune(s), prefix)
}

// LikeFold reports whether s LIKE p reads as true with p escaped (no wildcard): the
// same number of characters, each matching.
func LikeFold(s, p string) bool {
	return utf8.RuneCountInString(s) == utf8.RuneCountInString(p) && likeRunes([]rune(s), p)
}

// EqualFold reports whether a and b are equal under utf8mb4_unicode_ci, trailing
// blanks counting (MariaDB's "=" ignores them; a comparison with a mark after both
// sides does not): their weight strings are equal.
func EqualFold(a, b string) bool { return bytes.Equal(WeightString(a), WeightString(b)) }
