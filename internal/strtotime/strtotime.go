// Package strtotime reimplements PHP 8.2's strtotime(): it turns English
// date and time descriptions ("tomorrow noon", "last day of next month",
// "2024-03-05T10:00:00+01:00", "@1700000000", ...) into an instant.
//
// The implementation follows PHP's timelib (the 2022 series bundled with
// PHP 8.2) closely: a longest-match scanner over the token grammar of
// parse_date.re, the same per-token actions, and the same post-processing
// (filling unset fields from the base time, relative offsets, mktime-like
// normalisation and DST resolution). PHP's quirks are kept on purpose:
//
//	"noon tomorrow"    tomorrow 00:00 ("tomorrow" resets the time it follows)
//	"tomorrow noon"    tomorrow 12:00
//	"5.3.24"           today 05:03:24 (a time, not a date)
//	"2024"             today 20:24
//	"2023-02-29"       2023-03-01 (overflow carries like mktime)
//	"-3 days ago"      three days ahead
//
// Zone abbreviations come from timelib's table (zonedata.go, generated from
// PHP); identifiers are resolved case-insensitively against PHP's list and
// loaded with time.LoadLocation, so the system tz database is used as PHP on
// Debian does. For instants beyond the year 2500 the zone's POSIX rule is
// read from its TZif file and evaluated the way timelib does.
//
// Every case in testdata/golden.tsv was answered by real PHP 8.2.
package strtotime

import "time"

// Parse returns the instant that PHP 8.2's strtotime(text, now) returns
// when PHP's default time zone is now.Location(), expressed in that
// location. As strtotime works on whole seconds, the sub-second part of now
// is ignored and the result has none.
//
// Parse returns an error exactly where strtotime returns false: on syntax
// it does not understand, on double date, time or zone specifications, on
// unknown zones and on empty input.
func Parse(text string, now time.Time) (time.Time, error) {
	t, err := parseText(text)
	if err != nil {
		return time.Time{}, err
	}
	loc := now.Location()
	base := baseTime(now.Unix(), loc)
	t.fillHoles(&base)
	return time.Unix(t.updateTS(loc), 0).In(loc), nil
}

// baseTime is timelib_unixtime2local: the wall-clock fields of ts in loc.
// It does its own calendar arithmetic so that any int64 works, as in PHP.
func baseTime(ts int64, loc *time.Location) tm {
	off, _, _ := zoneInfo(ts, loc)
	local := ts + off
	days, rem := local/86400, local%86400
	if rem < 0 {
		days--
		rem += 86400
	}
	b := tm{d: days + 1, h: rem / 3600, i: rem / 60 % 60, s: rem % 60, z: off, loc: loc, zoneType: zoneID}
	b.y, b.m = 1970, 1
	b.civilFromDays(days)
	return b
}
