package strtotime

import (
	"strings"
	"sync"
	"time"
)

// Zone types, as timelib's zone_type.
const (
	zoneNone   = 0
	zoneOffset = 1 // a fixed UTC offset: "+02:00", "GMT-5", "@ts"
	zoneAbbr   = 2 // an abbreviation: "EST", "CEST", military letters
	zoneID     = 3 // an IANA identifier: "Europe/Amsterdam"
)

// abbrInfo is one entry of timelib's abbreviation table.
type abbrInfo struct {
	offset int64 // UTC offset in seconds, DST included
	dst    int64 // 1 when the abbreviation denotes daylight saving time
}

// maxAbbrLen mirrors timelib's MAX_ABBR_LEN: longer words are only tried as
// zone identifiers.
const maxAbbrLen = 6

var locCache sync.Map // canonical name -> *time.Location

// loadZone resolves an IANA identifier case-insensitively against the
// identifiers PHP knows, returning nil when it is not one.
func loadZone(name string) *time.Location {
	canon, ok := zoneIDs[strings.ToLower(name)]
	if !ok {
		return nil
	}
	if l, ok := locCache.Load(canon); ok {
		return l.(*time.Location)
	}
	loc, err := time.LoadLocation(canon)
	if err != nil {
		return nil
	}
	locCache.Store(canon, loc)
	return loc
}

// atoiPrefix is strtol on the leading digits of b.
func atoiPrefix(b []byte) int64 {
	var v int64
	for _, x := range b {
		if !isDigit(x) {
			break
		}
		v = v*10 + int64(x-'0')
		if v > 1<<40 {
			break
		}
	}
	return v
}

// parseTzCor is timelib_parse_tz_cor: the digits of a "+hh:mm"-style
// correction, in seconds. ok is false for shapes timelib rejects.
func (c *cursor) parseTzCor() (int64, bool) {
	begin := c.p
	for isDigit(c.cur()) || c.cur() == ':' {
		c.p++
	}
	s := c.b[begin:c.p]
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	switch len(s) {
	case 1, 2:
		return atoiPrefix(s) * 3600, true
	case 3, 4:
		switch {
		case at(1) == ':':
			return atoiPrefix(s)*3600 + atoiPrefix(s[2:])*60, true
		case at(2) == ':':
			return atoiPrefix(s)*3600 + atoiPrefix(s[3:])*60, true
		default:
			v := atoiPrefix(s)
			return (v/100)*3600 + (v%100)*60, true
		}
	case 5:
		if at(2) != ':' {
			return 0, false
		}
		return atoiPrefix(s)*3600 + atoiPrefix(s[3:])*60, true
	case 6:
		v := atoiPrefix(s)
		return (v/10000)*3600 + ((v/100)%100)*60 + v%100, true
	case 8:
		if at(2) != ':' || at(5) != ':' {
			return 0, false
		}
		return atoiPrefix(s)*3600 + atoiPrefix(s[3:])*60 + atoiPrefix(s[6:]), true
	}
	return 0, false
}

// parseZone is timelib_parse_zone: it reads a UTC offset, abbreviation or
// identifier, records it in t and returns false when nothing matched.
func (c *cursor) parseZone(t *tm) bool {
	for c.cur() == ' ' || c.cur() == '\t' || c.cur() == '(' {
		c.p++
	}
	if c.at(0) == 'G' && c.at(1) == 'M' && c.at(2) == 'T' && (c.at(3) == '+' || c.at(3) == '-') {
		c.p += 3
	}
	found := true
	switch c.cur() {
	case '+', '-':
		neg := c.cur() == '-'
		c.p++
		t.zoneType = zoneOffset
		t.dst = 0
		off, ok := c.parseTzCor()
		if neg {
			off = -off
		}
		t.z = off
		found = ok
	default:
		begin := c.p
		for b := c.cur(); isAlpha(b) || isDigit(b) || b == '/' || b == '_' || b == '-' || b == '+'; b = c.cur() {
			c.p++
		}
		word := string(c.b[begin:c.p])
		var offset int64
		got := 0
		if len(word) < maxAbbrLen {
			lw := strings.ToLower(word)
			if lw == "utc" || lw == "gmt" {
				got = 1
				t.zoneType = zoneAbbr
				t.dst = 0
			} else if a, ok := abbreviations[lw]; ok {
				got = 1
				offset = a.offset - a.dst*3600
				t.zoneType = zoneAbbr
				t.dst = a.dst
			}
		}
		if got == 0 || word == "UTC" {
			if loc := loadZone(word); loc != nil {
				t.loc = loc
				t.zoneType = zoneID
				got++
			}
		}
		found = got != 0
		t.z = offset
	}
	for c.cur() == ')' {
		c.p++
	}
	return found
}
