package strtotime

import (
	"math"
	"strconv"
	"strings"
)

// unset mirrors TIMELIB_UNSET: the value a field holds until the text sets
// it. Keeping timelib's sentinel (rather than a flag) reproduces the C code
// exactly where it does arithmetic on fields that may still be unset.
const unset = -9999999

// cursor walks a token the way timelib's actions walk their NUL-terminated
// copy of it: reading past the end yields 0, and so does an embedded NUL.
type cursor struct {
	b []byte
	p int
}

func (c *cursor) at(off int) byte {
	if i := c.p + off; i >= 0 && i < len(c.b) {
		return c.b[i]
	}
	return 0
}

func (c *cursor) cur() byte { return c.at(0) }

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isAlpha(b byte) bool { return (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') }

// strtoll parses an optional sign and decimal digits like C's strtoll,
// saturating on overflow and reporting it (errno == ERANGE).
func strtoll(s []byte) (int64, bool) {
	neg := false
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var v uint64
	overflow := false
	for ; i < len(s) && isDigit(s[i]); i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			overflow = true
			v = math.MaxUint64
			continue
		}
		v = v*10 + d
	}
	if neg {
		if overflow || v > 1<<63 {
			return math.MinInt64, true
		}
		return int64(-v), false
	}
	if overflow || v > math.MaxInt64 {
		return math.MaxInt64, true
	}
	return int64(v), false
}

// getNrEx is timelib_get_nr_ex: skip to the first digit (unset if none),
// then read at most maxLen digits.
func (c *cursor) getNrEx(maxLen int) (int64, int) {
	for !isDigit(c.cur()) {
		if c.cur() == 0 {
			return unset, 0
		}
		c.p++
	}
	begin := c.p
	for n := 0; isDigit(c.cur()) && n < maxLen; n++ {
		c.p++
	}
	v, _ := strtoll(c.b[begin:c.p])
	return v, c.p - begin
}

func (c *cursor) getNr(maxLen int) int64 {
	v, _ := c.getNrEx(maxLen)
	return v
}

// getUnsignedNr is timelib_get_unsigned_nr (used for relative amounts):
// every leading '-' flips the sign.
func (c *cursor) getUnsignedNr(maxLen int) int64 {
	dir := int64(1)
	for !isDigit(c.cur()) && c.cur() != '+' && c.cur() != '-' {
		if c.cur() == 0 {
			return unset
		}
		c.p++
	}
	for c.cur() == '+' || c.cur() == '-' {
		if c.cur() == '-' {
			dir = -dir
		}
		c.p++
	}
	return dir * c.getNr(maxLen)
}

// getSignedNr is timelib_get_signed_nr (used for @timestamps): one optional
// sign, at most maxLen digits, and an error when the value overflows or no
// digit follows.
func (c *cursor) getSignedNr(maxLen int) (int64, error) {
	for !isDigit(c.cur()) && c.cur() != '+' && c.cur() != '-' {
		if c.cur() == 0 {
			return 0, errUnexpectedData
		}
		c.p++
	}
	buf := make([]byte, 0, maxLen+1)
	if c.cur() == '+' || c.cur() == '-' {
		buf = append(buf, c.cur())
		c.p++
	}
	for !isDigit(c.cur()) {
		if c.cur() == 0 {
			return 0, errUnexpectedData
		}
		c.p++
	}
	for n := 0; isDigit(c.cur()) && n < maxLen; n++ {
		buf = append(buf, c.cur())
		c.p++
	}
	v, overflow := strtoll(buf)
	if overflow {
		return 0, errOutOfRange
	}
	return v, nil
}

// getFracNr is timelib_get_frac_nr: the fraction of a second, in
// microseconds, from a ".ddd" (or ":ddd") run.
func (c *cursor) getFracNr() int64 {
	for c.cur() != '.' && c.cur() != ':' && !isDigit(c.cur()) {
		if c.cur() == 0 {
			return unset
		}
		c.p++
	}
	begin := c.p
	for c.cur() == '.' || c.cur() == ':' || isDigit(c.cur()) {
		c.p++
	}
	str := c.b[begin+1 : c.p]
	// strtod stops at the first character that is not part of a number.
	end := 0
	dot := false
	for end < len(str) && (isDigit(str[end]) || (str[end] == '.' && !dot)) {
		if str[end] == '.' {
			dot = true
		}
		end++
	}
	f, _ := strconv.ParseFloat(strings.TrimSuffix(string(str[:end]), "."), 64)
	return int64(f * math.Pow(10, float64(7-(c.p-begin))))
}

// skipDaySuffix skips an English ordinal suffix after a day number.
func (c *cursor) skipDaySuffix() {
	if isSpace(c.cur()) {
		return
	}
	a, b := lower(c.at(0)), lower(c.at(1))
	if (a == 'n' && b == 'd') || (a == 'r' && b == 'd') || (a == 's' && b == 't') || (a == 't' && b == 'h') {
		c.p += 2
	}
}

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// isSpace is C's isspace in the "C" locale.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r'
}

// word reads a run of ASCII letters.
func (c *cursor) word() string {
	begin := c.p
	for isAlpha(c.cur()) {
		c.p++
	}
	return strings.ToLower(string(c.b[begin:c.p]))
}

var relTextTable = map[string][2]int64{ // word -> {value, behavior}
	"first": {1, 0}, "next": {1, 0}, "second": {2, 0}, "third": {3, 0},
	"fourth": {4, 0}, "fifth": {5, 0}, "sixth": {6, 0}, "seventh": {7, 0},
	"eight": {8, 0}, "eighth": {8, 0}, "ninth": {9, 0}, "tenth": {10, 0},
	"eleventh": {11, 0}, "twelfth": {12, 0}, "last": {-1, 0},
	"previous": {-1, 0}, "this": {0, 1},
}

// getRelativeText is timelib_get_relative_text: an ordinal or
// next/last/previous/this, returning its amount and weekday behaviour.
func (c *cursor) getRelativeText(behavior *int64) int64 {
	for c.cur() == ' ' || c.cur() == '\t' || c.cur() == '-' || c.cur() == '/' {
		c.p++
	}
	if e, ok := relTextTable[c.word()]; ok {
		*behavior = e[1]
		return e[0]
	}
	return 0
}

var monthTable = map[string]int64{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7,
	"aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
	"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8,
	"ix": 9, "x": 10, "xi": 11, "xii": 12,
	"january": 1, "february": 2, "march": 3, "april": 4, "june": 6,
	"july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
	"december": 12,
}

func (c *cursor) lookupMonth() int64 { return monthTable[c.word()] }

// getMonth skips separators and reads a textual (or Roman) month.
func (c *cursor) getMonth() int64 {
	for c.cur() == ' ' || c.cur() == '\t' || c.cur() == '-' || c.cur() == '.' || c.cur() == '/' {
		c.p++
	}
	return c.lookupMonth()
}

// eatSpaces skips blanks, including UTF-8 NBSP and NNBSP.
func (c *cursor) eatSpaces() {
	for {
		switch {
		case c.cur() == ' ' || c.cur() == '\t':
			c.p++
		case c.at(0) == 0xe2 && c.at(1) == 0x80 && c.at(2) == 0xaf:
			c.p += 3
		case c.at(0) == 0xc2 && c.at(1) == 0xa0:
			c.p += 2
		default:
			return
		}
	}
}

// Relative unit kinds, as in timelib.
const (
	unitMicrosec = iota
	unitSecond
	unitMinute
	unitHour
	unitDay
	unitMonth
	unitYear
	unitWeekday
	unitSpecial
)

// specialWeekday is TIMELIB_SPECIAL_WEEKDAY; note that its value (1) is
// also what "weekday" yields when used as a day name, i.e. Monday.
const (
	specialWeekday              = 1
	specialDayOfWeekInMonth     = 2
	specialLastDayOfWeekInMonth = 3
)

type relUnit struct {
	unit int
	mult int64
}

var relUnitTable = map[string]relUnit{
	"ms": {unitMicrosec, 1000}, "msec": {unitMicrosec, 1000}, "msecs": {unitMicrosec, 1000},
	"millisecond": {unitMicrosec, 1000}, "milliseconds": {unitMicrosec, 1000},
	"\xc2\xb5s": {unitMicrosec, 1}, "usec": {unitMicrosec, 1}, "usecs": {unitMicrosec, 1},
	"\xc2\xb5sec": {unitMicrosec, 1}, "\xc2\xb5secs": {unitMicrosec, 1},
	"microsecond": {unitMicrosec, 1}, "microseconds": {unitMicrosec, 1},
	"sec": {unitSecond, 1}, "secs": {unitSecond, 1}, "second": {unitSecond, 1}, "seconds": {unitSecond, 1},
	"min": {unitMinute, 1}, "mins": {unitMinute, 1}, "minute": {unitMinute, 1}, "minutes": {unitMinute, 1},
	"hour": {unitHour, 1}, "hours": {unitHour, 1},
	"day": {unitDay, 1}, "days": {unitDay, 1},
	"week": {unitDay, 7}, "weeks": {unitDay, 7},
	"fortnight": {unitDay, 14}, "fortnights": {unitDay, 14},
	"forthnight": {unitDay, 14}, "forthnights": {unitDay, 14},
	"month": {unitMonth, 1}, "months": {unitMonth, 1},
	"year": {unitYear, 1}, "years": {unitYear, 1},
	"mondays": {unitWeekday, 1}, "monday": {unitWeekday, 1}, "mon": {unitWeekday, 1},
	"tuesdays": {unitWeekday, 2}, "tuesday": {unitWeekday, 2}, "tue": {unitWeekday, 2},
	"wednesdays": {unitWeekday, 3}, "wednesday": {unitWeekday, 3}, "wed": {unitWeekday, 3},
	"thursdays": {unitWeekday, 4}, "thursday": {unitWeekday, 4}, "thu": {unitWeekday, 4},
	"fridays": {unitWeekday, 5}, "friday": {unitWeekday, 5}, "fri": {unitWeekday, 5},
	"saturdays": {unitWeekday, 6}, "saturday": {unitWeekday, 6}, "sat": {unitWeekday, 6},
	"sundays": {unitWeekday, 0}, "sunday": {unitWeekday, 0}, "sun": {unitWeekday, 0},
	"weekday": {unitSpecial, specialWeekday}, "weekdays": {unitSpecial, specialWeekday},
}

// lookupRelUnit is timelib_lookup_relunit: the unit word runs up to the
// next separator and is matched case-insensitively (ASCII only).
func (c *cursor) lookupRelUnit() (relUnit, bool) {
	begin := c.p
	for {
		switch c.cur() {
		case 0, ' ', ',', '\t', ';', ':', '/', '.', '-', '(', ')':
			u, ok := relUnitTable[asciiLower(c.b[begin:c.p])]
			return u, ok
		}
		c.p++
	}
}

func asciiLower(b []byte) string {
	out := make([]byte, len(b))
	for i, x := range b {
		out[i] = lower(x)
	}
	return string(out)
}

// meridian is timelib_meridian: the hour correction for am/pm.
func (c *cursor) meridian(h int64) int64 {
	var ret int64
	for !strings.ContainsRune("AaPp", rune(c.cur())) && c.cur() != 0 {
		c.p++
	}
	if c.cur() == 'a' || c.cur() == 'A' {
		if h == 12 {
			ret = -12
		}
	} else if h != 12 {
		ret = 12
	}
	c.p++
	if c.cur() == '.' {
		c.p++
	}
	if c.cur() == 'M' || c.cur() == 'm' {
		c.p++
	}
	if c.cur() == '.' {
		c.p++
	}
	return ret
}
