package strtotime

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Beyond its explicit transitions a zone follows the POSIX TZ rule stored
// at the end of its TZif file ("EST5EDT,M3.2.0,M11.1.0"). For the distant
// future timelib evaluates that rule itself, computing the weekday of a
// month's first day with the year truncated to a C int; for years past
// 2^31 that picks other transition dates than the real calendar would. This
// file reproduces timelib's evaluation (parse_posix.c) so such instants get
// the same offsets as in PHP.

// posixTrans is one transition rule: Jn, n or Mm.w.d, plus the wall-clock
// time of day in seconds.
type posixTrans struct {
	kind             byte // 'J' (1..365, no Feb 29), 'n' (0..365), 'M'
	days             int
	month, week, dow int
	secs             int64
}

// posixRule is a parsed POSIX TZ string. Offsets are seconds east of UTC.
type posixRule struct {
	stdOff, dstOff int64
	hasDST         bool
	begin, end     posixTrans
}

// posixCache maps a zone name to its *posixRule (nil when unknown). Keying
// by name keeps it bounded by the number of zones on the system.
var posixCache sync.Map

// zoneRule returns the POSIX rule of loc's TZif file, or nil when it cannot
// be found or has no DST.
func zoneRule(loc *time.Location) *posixRule {
	name := loc.String()
	if _, known := zoneIDs[strings.ToLower(name)]; !known && name != "Local" {
		return nil // e.g. a time.FixedZone: no rule, and the cache stays bounded
	}
	if r, ok := posixCache.Load(name); ok {
		return r.(*posixRule)
	}
	var rule *posixRule
	if tz := readFooter(name); tz != "" {
		if r, ok := parsePosix(tz); ok && r.hasDST {
			rule = r
		}
	}
	posixCache.Store(name, rule)
	return rule
}

// readFooter returns the TZ string at the end of the named zone's file.
func readFooter(name string) string {
	var paths []string
	if name == "Local" {
		paths = append(paths, "/etc/localtime")
	} else if name != "" && name != "UTC" && !strings.Contains(name, "..") {
		dirs := []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ", "/etc/zoneinfo"}
		if z := os.Getenv("ZONEINFO"); z != "" {
			dirs = append([]string{z}, dirs...)
		}
		for _, d := range dirs {
			paths = append(paths, filepath.Join(d, name))
		}
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte("TZif")) || len(b) < 2 || b[len(b)-1] != '\n' {
			continue
		}
		i := bytes.LastIndexByte(b[:len(b)-1], '\n')
		if i < 0 {
			continue
		}
		return string(b[i+1 : len(b)-1])
	}
	return ""
}

// parsePosix parses "std offset [dst [offset] [,start[/time],end[/time]]]".
func parsePosix(s string) (*posixRule, bool) {
	p := &posixParser{s: s}
	r := &posixRule{}
	if !p.name() {
		return nil, false
	}
	off, ok := p.offset()
	if !ok {
		return nil, false
	}
	r.stdOff = -off
	if p.done() {
		return r, true
	}
	if !p.name() {
		return nil, false
	}
	r.hasDST = true
	r.dstOff = r.stdOff + 3600
	if !p.done() && p.peek() != ',' {
		off, ok := p.offset()
		if !ok {
			return nil, false
		}
		r.dstOff = -off
	}
	if p.peek() != ',' {
		return nil, false
	}
	p.i++
	if r.begin, ok = p.trans(); !ok || p.peek() != ',' {
		return nil, false
	}
	p.i++
	if r.end, ok = p.trans(); !ok || !p.done() {
		return nil, false
	}
	return r, true
}

type posixParser struct {
	s string
	i int
}

func (p *posixParser) done() bool { return p.i >= len(p.s) }

func (p *posixParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *posixParser) name() bool {
	if p.peek() == '<' {
		j := strings.IndexByte(p.s[p.i:], '>')
		if j < 0 {
			return false
		}
		p.i += j + 1
		return true
	}
	start := p.i
	for isAlpha(p.peek()) {
		p.i++
	}
	return p.i-start >= 3
}

func (p *posixParser) num() (int, bool) {
	start, v := p.i, 0
	for isDigit(p.peek()) && p.i-start < 6 {
		v = v*10 + int(p.peek()-'0')
		p.i++
	}
	return v, p.i > start
}

// offset reads [+-]hh[:mm[:ss]] as seconds (POSIX sign: positive is west).
func (p *posixParser) offset() (int64, bool) {
	sign := int64(1)
	if p.peek() == '+' || p.peek() == '-' {
		if p.peek() == '-' {
			sign = -1
		}
		p.i++
	}
	h, ok := p.num()
	if !ok {
		return 0, false
	}
	secs := int64(h) * 3600
	for _, mult := range []int64{60, 1} {
		if p.peek() != ':' {
			break
		}
		p.i++
		v, ok := p.num()
		if !ok {
			return 0, false
		}
		secs += int64(v) * mult
	}
	return sign * secs, true
}

func (p *posixParser) trans() (posixTrans, bool) {
	t := posixTrans{secs: 7200}
	var ok bool
	switch p.peek() {
	case 'J':
		p.i++
		t.kind = 'J'
		t.days, ok = p.num()
	case 'M':
		p.i++
		t.kind = 'M'
		if t.month, ok = p.num(); !ok || p.peek() != '.' {
			return t, false
		}
		p.i++
		if t.week, ok = p.num(); !ok || p.peek() != '.' {
			return t, false
		}
		p.i++
		t.dow, ok = p.num()
		ok = ok && t.month >= 1 && t.month <= 12 && t.week >= 1 && t.week <= 5 && t.dow <= 6
	default:
		t.kind = 'n'
		t.days, ok = p.num()
	}
	if !ok {
		return t, false
	}
	if p.peek() == '/' {
		p.i++
		if t.secs, ok = p.offset(); !ok {
			return t, false
		}
	}
	return t, true
}

var monthLengths = [2][12]int64{
	{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
	{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
}

// calcTransition is timelib's calc_transition: seconds from the start of
// year to the transition day, including the C int truncation of the year
// in the weekday computation.
func (t posixTrans) calcTransition(year int64) int64 {
	leap := 0
	if isLeap(year) {
		leap = 1
	}
	switch t.kind {
	case 'J':
		v := int64(t.days - 1)
		if leap == 1 && t.days >= 60 {
			v++
		}
		return v * 86400
	case 'n':
		return int64(t.days) * 86400
	}
	m1 := int32((t.month+9)%12 + 1)
	yy := year
	if t.month <= 2 {
		yy = year - 1
	}
	yy0 := int32(yy)
	yy1, yy2 := yy0/100, yy0%100
	dow := ((26*m1-2)/10 + 1 + yy2 + yy2/4 + yy1/4 - 2*yy1) % 7
	if dow < 0 {
		dow += 7
	}
	d := int64(int32(t.dow) - dow)
	if d < 0 {
		d += 7
	}
	for i := 1; i < t.week; i++ {
		if d+7 >= monthLengths[leap][t.month-1] {
			break
		}
		d += 7
	}
	v := d * 86400
	for i := 0; i < t.month-1; i++ {
		v += monthLengths[leap][i] * 86400
	}
	return v
}

// tsAtStartOfYear is timelib_ts_at_start_of_year.
func tsAtStartOfYear(year int64) int64 {
	leaps := func(y int64) int64 {
		y--
		return y/4 - y/100 + y/400
	}
	return 86400 * ((year-1970)*365 + leaps(year) - leaps(1970))
}

// fetch is timelib_fetch_posix_timezone_offset.
func (r *posixRule) fetch(ts int64) (offset, transition int64, isDST bool) {
	var b tm
	days := ts / 86400
	if ts%86400 < 0 {
		days--
	}
	b.civilFromDays(days)
	var times [6]int64
	var dst [6]bool
	for k, y := range []int64{b.y - 1, b.y, b.y + 1} {
		start := tsAtStartOfYear(y)
		begin := start + r.begin.calcTransition(y) + r.begin.secs - r.stdOff
		end := start + r.end.calcTransition(y) + r.end.secs - r.dstOff
		if begin < end {
			times[2*k], times[2*k+1] = begin, end
			dst[2*k], dst[2*k+1] = true, false
		} else {
			times[2*k], times[2*k+1] = end, begin
			dst[2*k], dst[2*k+1] = false, true
		}
	}
	for i := 1; i < len(times); i++ {
		if ts < times[i] {
			if dst[i-1] {
				return r.dstOff, times[i-1], true
			}
			return r.stdOff, times[i-1], false
		}
	}
	// timelib finds no entry here and PHP would use garbage; stay sane.
	return r.stdOff, times[5], false
}
