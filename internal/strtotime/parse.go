package strtotime

import (
	"errors"
	"time"
)

// Errors reported by Parse. PHP's strtotime collapses all of them into
// false; they are distinct here only to make failures easier to diagnose.
var (
	errEmpty          = errors.New("strtotime: empty string")
	errUnexpectedChar = errors.New("strtotime: unexpected character")
	errUnexpectedData = errors.New("strtotime: unexpected data")
	errOutOfRange     = errors.New("strtotime: number out of range")
	errDoubleTime     = errors.New("strtotime: double time specification")
	errDoubleDate     = errors.New("strtotime: double date specification")
	errDoubleTZ       = errors.New("strtotime: double timezone specification")
	errTZNotFound     = errors.New("strtotime: the timezone could not be found in the database")
)

// rel holds the relative part of a parsed string (timelib_rel_time).
type rel struct {
	y, m, d, h, i, s, us int64
	weekday              int64
	weekdayBehavior      int64
	haveWeekdayRelative  bool
	haveSpecialRelative  bool
	specialType          int64
	specialAmount        int64
	firstLastDayOf       int
}

// tm is the subset of timelib_time that strtotime uses.
type tm struct {
	y, m, d, h, i, s, us int64
	z, dst               int64
	zoneType             int
	loc                  *time.Location
	haveTime, haveDate   int
	haveZone             int
	haveRelative         bool
	rel                  rel
}

const (
	firstDayOfMonth = 1
	lastDayOfMonth  = 2
)

func (t *tm) haveTimeOnce() error {
	if t.haveTime != 0 {
		return errDoubleTime
	}
	t.haveTime = 1
	t.h, t.i, t.s, t.us = 0, 0, 0, 0
	return nil
}

func (t *tm) unhaveTime() {
	t.haveTime = 0
	t.h, t.i, t.s, t.us = 0, 0, 0, 0
}

func (t *tm) haveDateOnce() error {
	if t.haveDate != 0 {
		return errDoubleDate
	}
	t.haveDate = 1
	return nil
}

func (t *tm) unhaveDate() {
	t.haveDate = 0
	t.d, t.m, t.y = 0, 0, 0
}

// haveTZ is TIMELIB_HAVE_TZ: a second zone is ignored with a warning, a
// third one is an error. skip reports that the action must stop here.
func (t *tm) haveTZ() (skip bool, err error) {
	if t.haveZone != 0 {
		if t.haveZone > 1 {
			return true, errDoubleTZ
		}
		t.haveZone++
		return true, nil
	}
	t.haveZone++
	return false, nil
}

func (t *tm) haveWeekdayRelative() {
	t.haveRelative = true
	t.rel.haveWeekdayRelative = true
}

func (t *tm) haveSpecialRelative() {
	t.haveRelative = true
	t.rel.haveSpecialRelative = true
}

// processYear is TIMELIB_PROCESS_YEAR: two-digit years pivot at 70.
func processYear(y int64, length int) int64 {
	if y == unset || length >= 4 {
		return y
	}
	if y < 100 {
		if y < 70 {
			return y + 2000
		}
		return y + 1900
	}
	return y
}

// addWithOverflow is timelib's add_with_overflow: the product may wrap
// (as in C), but a sum that overflows is an error.
func addWithOverflow(e *int64, amount, mult int64) error {
	v := amount * mult
	sum := *e + v
	if (v > 0 && sum < *e) || (v < 0 && sum > *e) {
		*e = sum
		return errOutOfRange
	}
	*e = sum
	return nil
}

// setRelative is timelib_set_relative: it adds amount of the unit named at
// c. keepTime is TIMELIB_TIME_PART_KEEP ("+2 mondays" keeps the clock).
func (t *tm) setRelative(c *cursor, amount, behavior int64, keepTime bool) error {
	u, ok := c.lookupRelUnit()
	if !ok {
		return nil
	}
	switch u.unit {
	case unitMicrosec:
		return addWithOverflow(&t.rel.us, amount, u.mult)
	case unitSecond:
		return addWithOverflow(&t.rel.s, amount, u.mult)
	case unitMinute:
		return addWithOverflow(&t.rel.i, amount, u.mult)
	case unitHour:
		return addWithOverflow(&t.rel.h, amount, u.mult)
	case unitDay:
		return addWithOverflow(&t.rel.d, amount, u.mult)
	case unitMonth:
		return addWithOverflow(&t.rel.m, amount, u.mult)
	case unitYear:
		return addWithOverflow(&t.rel.y, amount, u.mult)
	case unitWeekday:
		t.haveWeekdayRelative()
		if !keepTime {
			t.unhaveTime()
		}
		if amount > 0 {
			t.rel.d += (amount - 1) * 7
		} else {
			t.rel.d += amount * 7
		}
		t.rel.weekday = u.mult
		t.rel.weekdayBehavior = behavior
	case unitSpecial:
		t.haveSpecialRelative()
		if !keepTime {
			t.unhaveTime()
		}
		t.rel.specialType = u.mult
		t.rel.specialAmount = amount
	}
	return nil
}

// parseText runs the scanner over s and returns the parsed fields, or the
// first error (any error makes strtotime return false).
func parseText(s string) (tm, error) {
	// Trim like timelib: leading and trailing C isspace(), keeping at least
	// one character.
	b, e := 0, len(s)-1
	if len(s) == 0 {
		return tm{}, errEmpty
	}
	for b < e && isSpace(s[b]) {
		b++
	}
	for e > b && isSpace(s[e]) {
		e--
	}
	content := s[b : e+1]
	// One NUL of padding lets rules that look for end-of-input ("\000" in
	// meridian and datenoyear) match, as timelib's zero-filled buffer does.
	in := make([]byte, len(content)+1)
	copy(in, content)

	t := tm{
		y: unset, m: unset, d: unset, h: unset, i: unset, s: unset, us: unset,
		z: unset, dst: unset,
	}
	dfa := tokenizer()
	for pos := 0; pos < len(content); {
		n, r := dfa.longest(in, pos)
		if n == 0 {
			return tm{}, errUnexpectedChar
		}
		tok := in[pos : pos+n]
		pos += n
		if err := t.action(ruleID(r), tok); err != nil {
			return tm{}, err
		}
	}
	return t, nil
}
