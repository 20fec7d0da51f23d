package strtotime

import "sync"

// This file transcribes the token definitions of timelib's parse_date.re
// (the version bundled with PHP 8.2) into Go regexp syntax. re2c's
// 'single quoted' strings are case-insensitive and become (?i:...); "double
// quoted" strings stay case-sensitive. The order of the rules matters: on
// equal match length the earlier rule wins, exactly as in re2c.

// ruleID names a scanner rule; its value is the priority (lower wins ties).
type ruleID int

const (
	rYesterday ruleID = iota
	rNow
	rNoon
	rMidnightToday
	rTomorrow
	rTimestamp
	rTimestampMs
	rFirstLastDayOf
	rBackFrontOf
	rWeekdayOf
	rTime12
	rMSSQLTime
	rTime24
	rGNUNoColon
	rISO8601NoColon
	rAmerican
	rISODate
	rISODate2
	rISODateX
	rGNUDateShorter
	rGNUDateShort
	rDateFull
	rPointedDate4
	rPointedDate2
	rDateNoDay
	rDateNoDayRev
	rDateTextual
	rDateNoYearRev
	rDateNoColon
	rXMLRPCSoap
	rPgYDotD
	rISOWeekDay
	rISOWeek
	rPgTextShort
	rPgTextReverse
	rCLF
	rYear4
	rAgo
	rDayText
	rRelativeTextWeek
	rRelativeText
	rMonthText
	rTZ
	rDateShortTime12
	rDateShortTime24
	rRelative
	rSkipPunct
	rSkipSpace
	rSkipNul
	rAny
	numRules
)

func grammar() []string {
	const (
		nbsp  = `\x{C2}\x{A0}`
		nnbsp = `\x{E2}\x{80}\x{AF}`
	)
	space := `(?:[ \t]+|(?:` + nbsp + `)+|(?:` + nnbsp + `)+)`
	opt := func(s string) string { return `(?:` + s + `)?` }
	grp := func(s string) string { return `(?:` + s + `)` }

	frac := `\.[0-9]+`
	hour24 := `(?:[01]?[0-9]|2[0-4])`
	hour24lz := `(?:[01][0-9]|2[0-4])`
	hour12 := `(?:0?[1-9]|1[0-2])`
	minute := `(?:[0-5]?[0-9])`
	minutelz := `(?:[0-5][0-9])`
	second := `(?:[0-5]?[0-9]|60)`
	secondlz := `(?:[0-5][0-9]|60)`
	meridian := `(?:[AaPp]\.?[Mm]\.?[\x00\t ])`
	tz := `(?:\(?[A-Za-z]{1,6}\)?|[A-Z][a-z]+(?:[_/-][A-Za-z]+)+)`
	tzcorrection := `(?:(?:GMT)?[+-](?:` + hour24 + opt(`:?`+minute) + `|` + hour24lz + minutelz + secondlz + `|` + hour24lz + `:` + minutelz + `:` + secondlz + `))`

	daysuf := `(?:st|nd|rd|th)`
	month := `(?:0?[0-9]|1[0-2])`
	day := `(?:(?:[0-2]?[0-9]|3[01])` + daysuf + `?)`
	year := `[0-9]{1,4}`
	year2 := `[0-9]{2}`
	year4 := `[0-9]{4}`
	year4withsign := `[+-]?[0-9]{4}`
	yearx := `[+-][0-9]{5,19}`
	dayofyear := `(?:00[1-9]|0[1-9][0-9]|[12][0-9][0-9]|3[0-5][0-9]|36[0-6])`
	weekofyear := `(?:0[1-9]|[1-4][0-9]|5[0-3])`
	monthlz := `(?:0[0-9]|1[0-2])`
	daylz := `(?:0[0-9]|[12][0-9]|3[01])`

	dayfulls := `(?i:sundays|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays)`
	dayfull := `(?i:sunday|monday|tuesday|wednesday|thursday|friday|saturday)`
	dayabbr := `(?i:sun|mon|tue|wed|thu|fri|sat)`
	dayspecial := `(?i:weekdays?)`
	daytext := grp(dayfulls + `|` + dayfull + `|` + dayabbr + `|` + dayspecial)

	monthfull := `(?i:january|february|march|april|may|june|july|august|september|october|november|december)`
	monthabbr := `(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)`
	monthroman := `(?:I|II|III|IV|V|VI|VII|VIII|IX|X|XI|XII)`
	monthtext := grp(monthfull + `|` + monthabbr + `|` + monthroman)

	t := `(?i:t)?`
	timetiny12 := hour12 + opt(space) + meridian
	timeshort12 := hour12 + `[:.]` + minutelz + opt(space) + meridian
	timelong12 := hour12 + `[:.]` + minute + `[:.]` + secondlz + opt(space) + meridian
	timetiny24 := `(?i:t)` + hour24
	timeshort24 := t + hour24 + `[:.]` + minute
	timelong24 := t + hour24 + `[:.]` + minute + `[:.]` + second
	iso8601long := t + hour24 + `[:.]` + minute + `[:.]` + second + frac
	iso8601normtz := t + hour24 + `[:.]` + minute + `[:.]` + secondlz + opt(space) + grp(tzcorrection+`|`+tz)
	gnunocolon := t + hour24lz + minutelz
	iso8601nocolon := t + hour24lz + minutelz + secondlz

	americanshort := month + `/` + day
	american := month + `/` + day + `/` + year
	iso8601dateslash := year4 + `/` + monthlz + `/` + daylz + `/?`
	dateslash := year4 + `/` + month + `/` + day
	iso8601date4 := year4withsign + `-` + monthlz + `-` + daylz
	iso8601date2 := year2 + `-` + monthlz + `-` + daylz
	iso8601datex := yearx + `-` + monthlz + `-` + daylz
	gnudateshorter := year4 + `-` + month
	gnudateshort := year + `-` + month + `-` + day
	pointeddate4 := day + `[.\t-]` + month + `[.-]` + year4
	pointeddate2 := day + `[.\t]` + month + `\.` + year2
	datefull := day + `[ \t.-]*` + monthtext + `[ \t.-]*` + year
	datenoday := monthtext + `[ .\t-]*` + year4
	datenodayrev := year4 + `[ .\t-]*` + monthtext
	datetextual := monthtext + `[ .\t-]*` + day + `[,.stndrh\t ]+` + year
	datenoyear := monthtext + `[ .\t-]*` + day + `(?:[,.stndrh\t ]+|\x00)`
	datenoyearrev := day + `[ .\t-]*` + monthtext
	datenocolon := year4 + monthlz + daylz

	soap := year4 + `-` + monthlz + `-` + daylz + `T` + hour24lz + `:` + minutelz + `:` + secondlz + frac + opt(tzcorrection)
	xmlrpc := year4 + monthlz + daylz + `T` + hour24 + `:` + minutelz + `:` + secondlz
	xmlrpcnocolon := year4 + monthlz + daylz + `(?i:t)` + hour24 + minutelz + secondlz
	wddx := year4 + `-` + month + `-` + day + `T` + hour24 + `:` + minute + `:` + second
	pgydotd := year4 + `[.-]?` + dayofyear
	pgtextshort := monthabbr + `-` + daylz + `-` + year
	pgtextreverse := year + `-` + monthabbr + `-` + daylz
	mssqltime := hour12 + `:` + minutelz + `:` + secondlz + `[:.][0-9]+` + meridian
	isoweekday := year4 + `-?W` + weekofyear + `-?[0-7]`
	isoweek := year4 + `-?W` + weekofyear
	exif := year4 + `:` + monthlz + `:` + daylz + ` ` + hour24lz + `:` + minutelz + `:` + secondlz
	firstdayof := `(?i:first day of)`
	lastdayof := `(?i:last day of)`
	backof := `(?i:back of )` + hour24 + opt(opt(space)+meridian)
	frontof := `(?i:front of )` + hour24 + opt(opt(space)+meridian)
	clf := day + `/` + monthabbr + `/` + year4 + `:` + hour24lz + `:` + minutelz + `:` + secondlz + space + tzcorrection
	timestamp := `@-?[0-9]+`
	timestampms := `@-?[0-9]+\.[0-9]{0,6}`

	dateshortwithtimeshort12 := datenoyear + timeshort12
	dateshortwithtimelong12 := datenoyear + timelong12
	dateshortwithtimeshort := datenoyear + timeshort24
	dateshortwithtimelong := datenoyear + timelong24
	dateshortwithtimelongtz := datenoyear + iso8601normtz

	reltextnumber := `(?i:first|second|third|fourth|fifth|sixth|seventh|eight|eighth|ninth|tenth|eleventh|twelfth)`
	reltexttext := `(?i:next|last|previous|this)`
	micro := `\x{C2}\x{B5}`
	reltextunit := grp(`(?i:ms)|` + micro + `s|` +
		grp(`(?i:msec|millisecond)|`+micro+`sec|(?i:microsecond|usec|sec|second|min|minute|hour|day|fortnight|forthnight|month|year)`) + `(?i:s)?` +
		`|(?i:weeks)|` + daytext)
	relnumber := `(?:[+-]*[ \t]*[0-9]{1,13})`
	relative := relnumber + opt(space) + grp(reltextunit+`|(?i:week)`)
	relativetext := grp(reltextnumber+`|`+reltexttext) + space + reltextunit
	relativetextweek := reltexttext + space + `(?i:week)`
	weekdayof := grp(reltextnumber+`|`+reltexttext) + space + grp(dayfulls+`|`+dayfull+`|`+dayabbr) + space + `(?i:of)`

	alt := func(xs ...string) string {
		s := ""
		for i, x := range xs {
			if i > 0 {
				s += "|"
			}
			s += grp(x)
		}
		return s
	}

	rules := make([]string, numRules)
	rules[rYesterday] = `(?i:yesterday)`
	rules[rNow] = `(?i:now)`
	rules[rNoon] = `(?i:noon)`
	rules[rMidnightToday] = `(?i:midnight|today)`
	rules[rTomorrow] = `(?i:tomorrow)`
	rules[rTimestamp] = timestamp
	rules[rTimestampMs] = timestampms
	rules[rFirstLastDayOf] = alt(firstdayof, lastdayof)
	rules[rBackFrontOf] = alt(backof, frontof)
	rules[rWeekdayOf] = weekdayof
	rules[rTime12] = alt(timetiny12, timeshort12, timelong12)
	rules[rMSSQLTime] = mssqltime
	rules[rTime24] = alt(timetiny24, timeshort24, timelong24, iso8601long)
	rules[rGNUNoColon] = gnunocolon
	rules[rISO8601NoColon] = iso8601nocolon
	rules[rAmerican] = alt(americanshort, american)
	rules[rISODate] = alt(iso8601date4, iso8601dateslash, dateslash)
	rules[rISODate2] = iso8601date2
	rules[rISODateX] = iso8601datex
	rules[rGNUDateShorter] = gnudateshorter
	rules[rGNUDateShort] = gnudateshort
	rules[rDateFull] = datefull
	rules[rPointedDate4] = pointeddate4
	rules[rPointedDate2] = pointeddate2
	rules[rDateNoDay] = datenoday
	rules[rDateNoDayRev] = datenodayrev
	rules[rDateTextual] = alt(datetextual, datenoyear)
	rules[rDateNoYearRev] = datenoyearrev
	rules[rDateNoColon] = datenocolon
	rules[rXMLRPCSoap] = alt(xmlrpc, xmlrpcnocolon, soap, wddx, exif)
	rules[rPgYDotD] = pgydotd
	rules[rISOWeekDay] = isoweekday
	rules[rISOWeek] = isoweek
	rules[rPgTextShort] = pgtextshort
	rules[rPgTextReverse] = pgtextreverse
	rules[rCLF] = clf
	rules[rYear4] = year4
	rules[rAgo] = `(?i:ago)`
	rules[rDayText] = daytext
	rules[rRelativeTextWeek] = relativetextweek
	rules[rRelativeText] = relativetext
	rules[rMonthText] = alt(monthfull, monthabbr)
	rules[rTZ] = alt(tzcorrection, tz)
	rules[rDateShortTime12] = alt(dateshortwithtimeshort12, dateshortwithtimelong12)
	rules[rDateShortTime24] = alt(dateshortwithtimeshort, dateshortwithtimelong, dateshortwithtimelongtz)
	rules[rRelative] = relative
	rules[rSkipPunct] = `[.,]`
	rules[rSkipSpace] = space
	rules[rSkipNul] = `[\x00\n]`
	rules[rAny] = `[\x00-\x{FF}]`
	return rules
}

var (
	scannerOnce sync.Once
	scannerDFA  *lazyDFA
)

// tokenizer returns the shared scanner automaton, building it on first use.
func tokenizer() *lazyDFA {
	scannerOnce.Do(func() { scannerDFA = newLazyDFA(grammar()) })
	return scannerDFA
}
