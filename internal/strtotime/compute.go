package strtotime

import (
	"math"
	"time"
)

// This file ports the parts of timelib's tm2unixtime.c, dow.c and
// timelib.c that strtotime runs after parsing: filling unset fields from
// the base time, applying relative offsets in timelib's order, normalising
// out-of-range fields like mktime, and resolving the wall time in a zone.
// All arithmetic is int64 with wrap-around, as in the C code on amd64.

const (
	daysPerEra        = 146097 // days in 400 Gregorian years
	yearsPerEra       = 400
	hinnantEpochShift = 719468 // days from 0000-03-01 to 1970-01-01
)

var daysInMonth = [13]int64{31, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
var daysInMonthLeap = [13]int64{31, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func positiveMod(x, y int64) int64 {
	r := x % y
	if r < 0 {
		r += y
	}
	return r
}

var mTableCommon = [13]int64{-1, 0, 3, 3, 6, 1, 4, 6, 2, 5, 0, 3, 5}
var mTableLeap = [13]int64{-1, 6, 2, 3, 6, 1, 4, 6, 2, 5, 0, 3, 5}

// dayOfWeek is timelib_day_of_week (0 = Sunday).
func dayOfWeek(y, m, d int64) int64 {
	c1 := 6 - positiveMod(positiveMod(y, 400)/100, 4)*2
	y1 := positiveMod(y, 100)
	if m < 1 || m > 12 {
		m = 1 + positiveMod(m-1, 12)
	}
	m1 := mTableCommon[m]
	if isLeap(y) {
		m1 = mTableLeap[m]
	}
	return positiveMod(c1+y1+m1+y1/4+d, 7)
}

// dayNrFromWeekNr is timelib_daynr_from_weeknr: the day offset from
// January 1st of iy for ISO week iw, weekday id.
func dayNrFromWeekNr(iy, iw, id int64) int64 {
	dow := dayOfWeek(iy, 1, 1)
	day := -dow
	if dow > 4 {
		day = -(dow - 7)
	}
	return day + (iw-1)*7 + id
}

// rangeLimit is do_range_limit: carries a into b so that start <= a < end.
func rangeLimit(start, end, adj int64, a, b *int64) {
	if *a < start {
		aPlus1 := *a + 1
		*b -= (start-aPlus1)/adj + 1
		*a += adj * ((start - aPlus1) / adj)
		*a += adj
	}
	if *a >= end {
		*b += *a / adj
		*a -= adj * (*a / adj)
	}
}

// rangeLimitDays is do_range_limit_days: moves whole months between d and
// m until d fits the month. It reports whether anything changed.
func rangeLimitDays(y, m, d *int64) bool {
	if *d >= daysPerEra || *d <= -daysPerEra {
		*y += yearsPerEra * (*d / daysPerEra)
		*d -= daysPerEra * (*d / daysPerEra)
	}
	rangeLimit(1, 13, 12, m, y)

	cur := &daysInMonth
	if isLeap(*y) {
		cur = &daysInMonthLeap
	}
	changed := false
	for *d <= 0 && *m > 0 {
		pm, py := *m-1, *y
		if pm < 1 {
			pm += 12
			py--
		}
		if isLeap(py) {
			*d += daysInMonthLeap[pm]
		} else {
			*d += daysInMonth[pm]
		}
		*m--
		changed = true
	}
	for *d > 0 && *m <= 12 && *d > cur[*m] {
		*d -= cur[*m]
		*m++
		changed = true
	}
	return changed
}

// magicDateCalc converts a day count relative to 1970-01-01 into a civil
// date in one step (timelib's shortcut for "@ts"-style dates).
func (t *tm) magicDateCalc() {
	if t.d < -719498 {
		return
	}
	g := t.d + hinnantEpochShift - 1
	y := (10000*g + 14780) / 3652425
	ddd := g - (365*y + y/4 - y/100 + y/400)
	if ddd < 0 {
		y--
		ddd = g - (365*y + y/4 - y/100 + y/400)
	}
	mi := (100*ddd + 52) / 3060
	mm := (mi+2)%12 + 1
	y += (mi + 2) / 12
	dd := ddd - (mi*306+5)/10 + 1
	t.y, t.m, t.d = y, mm, dd
}

// civilFromDays sets y, m, d from a day count since 1970-01-01 (Howard
// Hinnant's algorithm, as timelib_unixtime2date uses).
func (t *tm) civilFromDays(days int64) {
	z := days + hinnantEpochShift
	era := z
	if z < 0 {
		era = z - (daysPerEra - 1)
	}
	era /= daysPerEra
	doe := z - era*daysPerEra
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*yearsPerEra
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	t.y, t.m, t.d = y, m, d
}

// normalize is timelib_do_normalize.
func (t *tm) normalize() {
	if t.us != unset {
		rangeLimit(0, 1000000, 1000000, &t.us, &t.s)
	}
	if t.s != unset {
		rangeLimit(0, 60, 60, &t.s, &t.i)
		rangeLimit(0, 60, 60, &t.i, &t.h)
		rangeLimit(0, 24, 24, &t.h, &t.d)
	}
	rangeLimit(1, 13, 12, &t.m, &t.y)
	if t.y == 1970 && t.m == 1 && t.d != 1 {
		t.magicDateCalc()
	}
	// Each pass moves at least one month; the era jump above bounds the
	// number of passes, but guard against pathological wrap-around anyway.
	for n := 0; n < 100000 && rangeLimitDays(&t.y, &t.m, &t.d); n++ {
	}
	rangeLimit(1, 13, 12, &t.m, &t.y)
}

// adjustForWeekday is do_adjust_for_weekday.
func (t *tm) adjustForWeekday() {
	cur := dayOfWeek(t.y, t.m, t.d)
	if t.rel.weekdayBehavior == 2 {
		// "this week" where today is Sunday; "sunday this week" otherwise.
		if cur == 0 && t.rel.weekday != 0 {
			t.rel.weekday -= 7
		}
		if t.rel.weekday == 0 && cur != 0 {
			t.rel.weekday = 7
		}
		t.d -= cur
		t.d += t.rel.weekday
		return
	}
	diff := t.rel.weekday - cur
	if (t.rel.d < 0 && diff < 0) || (t.rel.d >= 0 && diff <= -t.rel.weekdayBehavior) {
		diff += 7
	}
	if t.rel.weekday >= 0 {
		t.d += diff
	} else {
		w := t.rel.weekday
		if w < 0 {
			w = -w
		}
		t.d -= 7 - (w - cur)
	}
	t.rel.haveWeekdayRelative = false
}

// adjustRelative is do_adjust_relative.
func (t *tm) adjustRelative() {
	if t.rel.haveWeekdayRelative {
		t.adjustForWeekday()
	}
	t.normalize()
	if t.haveRelative {
		t.us += t.rel.us
		t.s += t.rel.s
		t.i += t.rel.i
		t.h += t.rel.h
		t.d += t.rel.d
		t.m += t.rel.m
		t.y += t.rel.y
	}
	switch t.rel.firstLastDayOf {
	case firstDayOfMonth:
		t.d = 1
	case lastDayOfMonth:
		t.d = 0
		t.m++
	}
	t.normalize()
}

// adjustSpecialWeekday is do_adjust_special_weekday ("+N weekdays").
func (t *tm) adjustSpecialWeekday() {
	count := t.rel.specialAmount
	dow := dayOfWeek(t.y, t.m, t.d)
	t.d += (count / 5) * 7
	rem := count % 5
	if count > 0 {
		if rem == 0 {
			if dow == 0 {
				t.d -= 2
			} else if dow == 6 {
				t.d--
			}
		} else if dow == 6 {
			t.d++
		} else if dow+rem > 5 {
			t.d += 2
		}
	} else {
		if rem == 0 {
			if dow == 6 {
				t.d += 2
			} else if dow == 0 {
				t.d++
			}
		} else if dow == 0 {
			t.d--
		} else if dow+rem < 1 {
			t.d -= 2
		}
	}
	t.d += rem
}

// adjustSpecial is do_adjust_special.
func (t *tm) adjustSpecial() {
	if t.rel.haveSpecialRelative && t.rel.specialType == specialWeekday {
		t.adjustSpecialWeekday()
	}
	t.normalize()
	t.rel.specialType, t.rel.specialAmount = 0, 0
}

// adjustSpecialEarly is do_adjust_special_early.
func (t *tm) adjustSpecialEarly() {
	if t.rel.haveSpecialRelative {
		switch t.rel.specialType {
		case specialDayOfWeekInMonth:
			t.d = 1
			t.m += t.rel.m
			t.rel.m = 0
		case specialLastDayOfWeekInMonth:
			t.d = 1
			t.m += t.rel.m + 1
			t.rel.m = 0
		}
	}
	switch t.rel.firstLastDayOf {
	case firstDayOfMonth:
		t.d = 1
	case lastDayOfMonth:
		t.d = 0
		t.m++
	}
	t.normalize()
}

// epochDays is timelib_epoch_days_from_time.
func (t *tm) epochDays() int64 {
	y := t.y
	if t.m <= 2 {
		y--
	}
	var era int64
	if y >= 0 {
		era = y / yearsPerEra
	} else {
		era = (y - 399) / yearsPerEra
	}
	yoe := y - era*yearsPerEra
	mp := t.m - 3
	if t.m <= 2 {
		mp = t.m + 9
	}
	doy := (153*mp+2)/5 + t.d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*daysPerEra + doe - hinnantEpochShift
}

// zoneInfo is timelib_get_time_zone_offset_info: the UTC offset in force
// at instant ts, the start of that offset period and its DST flag.
func zoneInfo(ts int64, loc *time.Location) (offset int64, transition int64, isDST bool) {
	// Far in the future only the zone's recurring (POSIX-style) rule
	// applies, and it repeats every 400 years because 400 Gregorian years
	// are a whole number of weeks. Shifting by whole 400-year cycles keeps
	// the instant inside time.Time's range without changing the answer.
	const (
		eraSeconds = daysPerEra * 86400
		shiftAbove = 16725225600 // 2500-01-01, well past the last transition
		floor      = -1 << 62    // before the first transition, any instant will do
	)
	var shift int64
	if ts > shiftAbove {
		if r := zoneRule(loc); r != nil {
			return r.fetch(ts)
		}
		shift = ((ts-shiftAbove)/eraSeconds + 1) * eraSeconds
		ts -= shift
	} else if ts < floor {
		ts = floor
	}
	tt := time.Unix(ts, 0).In(loc)
	_, off := tt.Zone()
	start, _ := tt.ZoneBounds()
	transition = math.MinInt64
	if !start.IsZero() {
		transition = start.Unix() + shift
	}
	return int64(off), transition, tt.IsDST()
}

// adjustTimezone is do_adjust_timezone: it turns the wall-clock seconds in
// t.sse into UTC. For zones with rules this picks, for wall times in a DST
// gap or overlap, the same side timelib picks.
func (t *tm) adjustTimezone(sse int64, defLoc *time.Location) int64 {
	switch t.zoneType {
	case zoneOffset:
		return sse - t.z
	case zoneAbbr:
		return sse - t.z - t.dst*3600
	}
	loc := defLoc
	if t.zoneType == zoneID && t.loc != nil {
		loc = t.loc
	}
	if loc == nil {
		return sse
	}
	curOff, curTrans, curDST := zoneInfo(sse, loc)
	_ = curTrans
	afterOff, afterTrans, _ := zoneInfo(sse-curOff, loc)
	actualOff, actualTrans := afterOff, afterTrans
	if curOff == afterOff && t.haveZone != 0 {
		if curOff >= 0 && t.dst != 0 && !curDST {
			earlierOff, earlierTrans, _ := zoneInfo(sse-curOff-7200, loc)
			if earlierOff != afterOff && sse-earlierOff < afterTrans {
				actualOff, actualTrans = earlierOff, earlierTrans
			}
		} else if curOff <= 0 && curDST && t.dst == 0 {
			laterOff, laterTrans, _ := zoneInfo(sse-curOff+7200, loc)
			if laterOff != afterOff && sse-laterOff >= laterTrans {
				actualOff, actualTrans = laterOff, laterTrans
			}
		}
	}
	inTransition := actualTrans != math.MinInt64 &&
		sse-actualOff >= actualTrans+(curOff-actualOff) &&
		sse-actualOff < actualTrans
	if curOff != actualOff && !inTransition {
		return sse - actualOff
	}
	return sse - curOff
}

// fillHoles is timelib_fill_holes with TIMELIB_NO_CLOBBER: unset fields
// come from the base time; a date without a time means midnight.
func (t *tm) fillHoles(now *tm) {
	if t.haveDate != 0 && t.haveTime == 0 {
		t.h, t.i, t.s, t.us = 0, 0, 0, 0
	}
	if t.y != unset || t.m != unset || t.d != unset || t.h != unset || t.i != unset || t.s != unset {
		if t.us == unset {
			t.us = 0
		}
	} else if t.us == unset {
		t.us = now.us
	}
	fill := func(p *int64, v int64) {
		if *p == unset {
			*p = v
		}
	}
	fill(&t.y, now.y)
	fill(&t.m, now.m)
	fill(&t.d, now.d)
	fill(&t.h, now.h)
	fill(&t.i, now.i)
	fill(&t.s, now.s)
	fill(&t.z, now.z)
	// PHP 8.2 leaves dst unset (non-zero) here; it only matters for zone
	// identifiers given in the text, where it makes timelib resolve a
	// repeated wall time to its first (DST) occurrence.
	if t.loc == nil {
		t.loc = now.loc
	}
	if t.zoneType == zoneNone {
		t.zoneType = zoneID
	}
}

// updateTS is timelib_update_ts: applies all relative parts and returns
// the Unix timestamp.
func (t *tm) updateTS(defLoc *time.Location) int64 {
	t.adjustSpecialEarly()
	t.adjustRelative()
	t.adjustSpecial()
	sse := t.h*3600 + t.i*60 + t.s
	days := t.epochDays()
	sse += days * (86400 / 2)
	sse += days * (86400 / 2)
	return t.adjustTimezone(sse, defLoc)
}
