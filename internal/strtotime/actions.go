package strtotime

import "math"

// The actions below are the C blocks attached to each rule in timelib's
// parse_date.re, transcribed one by one. They read the matched token with
// the same helper functions (getNr, getMonth, parseZone, ...) so that the
// way digits and words are picked out of a token is identical.

// action applies the semantic action of rule r to token tok.
func (t *tm) action(r ruleID, tok []byte) error {
	c := &cursor{b: tok}
	switch r {
	case rYesterday:
		t.haveRelative = true
		t.unhaveTime()
		t.rel.d = -1
	case rNow:
	case rNoon:
		t.unhaveTime()
		if err := t.haveTimeOnce(); err != nil {
			return err
		}
		t.h = 12
	case rMidnightToday:
		t.unhaveTime()
	case rTomorrow:
		t.haveRelative = true
		t.unhaveTime()
		t.rel.d = 1
	case rTimestamp, rTimestampMs:
		t.haveRelative = true
		t.unhaveDate()
		t.unhaveTime()
		if skip, err := t.haveTZ(); skip || err != nil {
			return err
		}
		neg := c.at(1) == '-'
		i, err := c.getSignedNr(24)
		if err != nil {
			return err
		}
		var us int64
		if r == rTimestampMs {
			before := c.p
			v, err := c.getSignedNr(6)
			if err != nil {
				return err
			}
			us = int64(float64(v) * math.Pow(10, float64(7-(c.p-before))))
			if neg {
				us = -us
			}
		}
		t.y, t.m, t.d = 1970, 1, 1
		t.h, t.i, t.s, t.us = 0, 0, 0, 0
		t.rel.s += i
		if r == rTimestampMs {
			t.rel.us = us
		}
		t.zoneType = zoneOffset
		t.z = 0
		t.dst = 0
	case rFirstLastDayOf:
		t.haveRelative = true
		if c.cur() == 'l' || c.cur() == 'L' {
			t.rel.firstLastDayOf = lastDayOfMonth
		} else {
			t.rel.firstLastDayOf = firstDayOfMonth
		}
	case rBackFrontOf:
		t.unhaveTime()
		if err := t.haveTimeOnce(); err != nil {
			return err
		}
		if c.cur() == 'b' {
			t.h = c.getNr(2)
			t.i = 15
		} else {
			t.h = c.getNr(2) - 1
			t.i = 45
		}
		if c.cur() != 0 {
			c.eatSpaces()
			t.h += c.meridian(t.h)
		}
	case rWeekdayOf:
		t.haveRelative = true
		t.haveSpecialRelative()
		var behavior int64
		i := c.getRelativeText(&behavior)
		c.eatSpaces()
		if i > 0 {
			t.rel.specialType = specialDayOfWeekInMonth
			return t.setRelative(c, i, 1, false)
		}
		t.rel.specialType = specialLastDayOfWeekInMonth
		return t.setRelative(c, i, behavior, false)
	case rTime12:
		if err := t.haveTimeOnce(); err != nil {
			return err
		}
		t.h = c.getNr(2)
		if c.cur() == ':' || c.cur() == '.' {
			t.i = c.getNr(2)
			if c.cur() == ':' || c.cur() == '.' {
				t.s = c.getNr(2)
			}
		}
		c.eatSpaces()
		t.h += c.meridian(t.h)
	case rMSSQLTime:
		if err := t.haveTimeOnce(); err != nil {
			return err
		}
		t.h = c.getNr(2)
		t.i = c.getNr(2)
		if c.cur() == ':' || c.cur() == '.' {
			t.s = c.getNr(2)
			if c.cur() == ':' || c.cur() == '.' {
				t.us = c.getFracNr()
			}
		}
		c.eatSpaces()
		t.h += c.meridian(t.h)
	case rTime24:
		if err := t.haveTimeOnce(); err != nil {
			return err
		}
		t.h = c.getNr(2)
		if c.cur() == ':' || c.cur() == '.' {
			t.i = c.getNr(2)
			if c.cur() == ':' || c.cur() == '.' {
				t.s = c.getNr(2)
				if c.cur() == '.' {
					t.us = c.getFracNr()
				}
			}
		}
		if c.cur() != 0 && !c.parseZone(t) {
			return errTZNotFound
		}
	case rGNUNoColon:
		switch t.haveTime {
		case 0:
			t.h = c.getNr(2)
			t.i = c.getNr(2)
			t.s = 0
		case 1:
			t.y = c.getNr(4)
		default:
			return errDoubleTime
		}
		t.haveTime++
	case rISO8601NoColon:
		if err := t.haveTimeOnce(); err != nil {
			return err
		}
		t.h = c.getNr(2)
		t.i = c.getNr(2)
		t.s = c.getNr(2)
		if c.cur() != 0 && !c.parseZone(t) {
			return errTZNotFound
		}
	case rAmerican:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.m = c.getNr(2)
		t.d = c.getNr(2)
		if c.cur() == '/' {
			y, n := c.getNrEx(4)
			t.y = processYear(y, n)
		}
	case rISODate:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		y, err := c.getSignedNr(4)
		if err != nil {
			return err
		}
		t.y = y
		t.m = c.getNr(2)
		t.d = c.getNr(2)
	case rISODate2:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		y, n := c.getNrEx(4)
		t.m = c.getNr(2)
		t.d = c.getNr(2)
		t.y = processYear(y, n)
	case rISODateX:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		y, err := c.getSignedNr(19)
		if err != nil {
			return err
		}
		t.y = y
		t.m = c.getNr(2)
		t.d = c.getNr(2)
	case rGNUDateShorter:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		y, n := c.getNrEx(4)
		t.m = c.getNr(2)
		t.d = 1
		t.y = processYear(y, n)
	case rGNUDateShort:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		y, n := c.getNrEx(4)
		t.m = c.getNr(2)
		t.d = c.getNr(2)
		t.y = processYear(y, n)
	case rDateFull:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.d = c.getNr(2)
		c.skipDaySuffix()
		t.m = c.getMonth()
		y, n := c.getNrEx(4)
		t.y = processYear(y, n)
	case rPointedDate4:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.d = c.getNr(2)
		t.m = c.getNr(2)
		t.y = c.getNr(4)
	case rPointedDate2:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.d = c.getNr(2)
		t.m = c.getNr(2)
		y, n := c.getNrEx(2)
		t.y = processYear(y, n)
	case rDateNoDay:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.m = c.getMonth()
		y, n := c.getNrEx(4)
		t.d = 1
		t.y = processYear(y, n)
	case rDateNoDayRev:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		y, n := c.getNrEx(4)
		t.m = c.getMonth()
		t.d = 1
		t.y = processYear(y, n)
	case rDateTextual:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.m = c.getMonth()
		t.d = c.getNr(2)
		y, n := c.getNrEx(4)
		t.y = processYear(y, n)
	case rDateNoYearRev:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.d = c.getNr(2)
		c.skipDaySuffix()
		t.m = c.getMonth()
	case rDateNoColon:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.y = c.getNr(4)
		t.m = c.getNr(2)
		t.d = c.getNr(2)
	case rXMLRPCSoap:
		if err := t.haveTimeOnce(); err != nil {
			return err
		}
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.y = c.getNr(4)
		t.m = c.getNr(2)
		t.d = c.getNr(2)
		t.h = c.getNr(2)
		t.i = c.getNr(2)
		t.s = c.getNr(2)
		if c.cur() == '.' {
			t.us = c.getFracNr()
			if c.cur() != 0 && !c.parseZone(t) {
				return errTZNotFound
			}
		}
	case rPgYDotD:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		y, n := c.getNrEx(4)
		t.d = c.getNr(3)
		t.m = 1
		t.y = processYear(y, n)
	case rISOWeekDay, rISOWeek:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.haveRelative = true
		t.y = c.getNr(4)
		w := c.getNr(2)
		d := int64(1)
		if r == rISOWeekDay {
			d = c.getNr(1)
		}
		t.m, t.d = 1, 1
		t.rel.d = dayNrFromWeekNr(t.y, w, d)
	case rPgTextShort:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.m = c.getMonth()
		t.d = c.getNr(2)
		y, n := c.getNrEx(4)
		t.y = processYear(y, n)
	case rPgTextReverse:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		y, n := c.getNrEx(4)
		t.m = c.getMonth()
		t.d = c.getNr(2)
		t.y = processYear(y, n)
	case rCLF:
		if err := t.haveTimeOnce(); err != nil {
			return err
		}
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.d = c.getNr(2)
		t.m = c.getMonth()
		t.y = c.getNr(4)
		t.h = c.getNr(2)
		t.i = c.getNr(2)
		t.s = c.getNr(2)
		c.eatSpaces()
		if !c.parseZone(t) {
			return errTZNotFound
		}
	case rYear4:
		t.y = c.getNr(4)
	case rAgo:
		t.rel.y = -t.rel.y
		t.rel.m = -t.rel.m
		t.rel.d = -t.rel.d
		t.rel.h = -t.rel.h
		t.rel.i = -t.rel.i
		t.rel.s = -t.rel.s
		t.rel.weekday = -t.rel.weekday
		if t.rel.weekday == 0 {
			t.rel.weekday = -7
		}
		if t.rel.haveSpecialRelative && t.rel.specialType == specialWeekday {
			t.rel.specialAmount = -t.rel.specialAmount
		}
	case rDayText:
		t.haveRelative = true
		t.haveWeekdayRelative()
		t.unhaveTime()
		if u, ok := c.lookupRelUnit(); ok {
			t.rel.weekday = u.mult
		}
		if t.rel.weekdayBehavior != 2 {
			t.rel.weekdayBehavior = 1
		}
	case rRelativeTextWeek:
		t.haveRelative = true
		for c.cur() != 0 {
			start := c.p
			var behavior int64
			i := c.getRelativeText(&behavior)
			c.eatSpaces()
			if err := t.setRelative(c, i, behavior, false); err != nil {
				return err
			}
			t.rel.weekdayBehavior = 2
			if !t.rel.haveWeekdayRelative {
				t.haveWeekdayRelative()
				t.rel.weekday = 1
			}
			if c.p == start {
				break
			}
		}
	case rRelativeText:
		t.haveRelative = true
		for c.cur() != 0 {
			start := c.p
			var behavior int64
			i := c.getRelativeText(&behavior)
			c.eatSpaces()
			if err := t.setRelative(c, i, behavior, false); err != nil {
				return err
			}
			if c.p == start {
				break
			}
		}
	case rMonthText:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.m = c.lookupMonth()
	case rTZ:
		if skip, err := t.haveTZ(); skip || err != nil {
			return err
		}
		c.eatSpaces()
		if !c.parseZone(t) {
			return errTZNotFound
		}
	case rDateShortTime12:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.m = c.getMonth()
		t.d = c.getNr(2)
		if err := t.haveTimeOnce(); err != nil {
			return err
		}
		t.h = c.getNr(2)
		t.i = c.getNr(2)
		if c.cur() == ':' || c.cur() == '.' {
			t.s = c.getNr(2)
			if c.cur() == '.' {
				t.us = c.getFracNr()
			}
		}
		t.h += c.meridian(t.h)
	case rDateShortTime24:
		if err := t.haveDateOnce(); err != nil {
			return err
		}
		t.m = c.getMonth()
		t.d = c.getNr(2)
		if err := t.haveTimeOnce(); err != nil {
			return err
		}
		t.h = c.getNr(2)
		t.i = c.getNr(2)
		if c.cur() == ':' {
			t.s = c.getNr(2)
			if c.cur() == '.' {
				t.us = c.getFracNr()
			}
		}
		if c.cur() != 0 && !c.parseZone(t) {
			return errTZNotFound
		}
	case rRelative:
		t.haveRelative = true
		for c.cur() != 0 {
			start := c.p
			i := c.getUnsignedNr(24)
			c.eatSpaces()
			if err := t.setRelative(c, i, 1, true); err != nil {
				return err
			}
			if c.p == start {
				break
			}
		}
	case rSkipPunct, rSkipSpace, rSkipNul:
	default:
		return errUnexpectedChar
	}
	return nil
}
