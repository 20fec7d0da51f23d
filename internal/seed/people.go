package seed

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
)

// person is a buyer or subscriber: a name, an e-mail address and where they live.
type person struct {
	first, last, email string
	country            int // index into countries
}

// address is a postal address in one country.
type address struct {
	street, street2, city, state, zip string
}

// emailSet holds the e-mail addresses in use in one account, folded the way the
// database compares them (letter case and accents ignored), so that customers and
// subscribers of an account never share an address by accident.
type emailSet map[string]struct{}

func (s emailSet) has(e string) bool { _, ok := s[foldKey(e)]; return ok }
func (s emailSet) add(e string)      { s[foldKey(e)] = struct{}{} }

// foldKey is the comparison key of an address: lower case, accents removed.
func foldKey(s string) string { return strings.ToLower(fold(s)) }

// foldMap spells letters with diacritics the way people do in e-mail addresses.
var foldMap = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'ā': "a", 'æ': "ae",
	'ç': "c", 'č': "c", 'ć': "c", 'ď': "d", 'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ě': "e",
	'ğ': "g", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ı': "i", 'ł': "l", 'ñ': "n", 'ń': "n", 'ň': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ō': "o", 'œ': "oe",
	'ř': "r", 'ś': "s", 'š': "s", 'ş': "s", 'ß': "ss", 'ť': "t", 'ù': "u", 'ú': "u", 'û': "u",
	'ü': "u", 'ū': "u", 'ů': "u", 'ý': "y", 'ÿ': "y", 'ž': "z", 'ź': "z", 'ż': "z", 'ễ': "e",
}

// fold removes diacritics from s, keeping the letter case.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		lr := unicode.ToLower(r)
		if f, ok := foldMap[lr]; ok {
			if lr != r {
				f = strings.ToUpper(f[:1]) + f[1:]
			}
			b.WriteString(f)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// localPart turns a name into the letters an e-mail address would use.
func localPart(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(fold(name)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "user"
	}
	return b.String()
}

// newPerson makes up a person with an address not yet used in the account.
func newPerson(r *rand.Rand, used emailSet) person {
	p := person{
		first:   firstNames[r.IntN(len(firstNames))],
		last:    lastNames[r.IntN(len(lastNames))],
		country: pickCountry(r),
	}
	p.email = newEmail(r, p.first, p.last, used)
	return p
}

func pickCountry(r *rand.Rand) int {
	n := r.IntN(countryWeightSum)
	for i, c := range countries {
		if n < c.weight {
			return i
		}
		n -= c.weight
	}
	return 0
}

var countryWeightSum = func() int {
	s := 0
	for _, c := range countries {
		s += c.weight
	}
	return s
}()

// newEmail makes up an address for the name in one of the forms people use, adding
// digits until it is not in use, and records it.
func newEmail(r *rand.Rand, first, last string, used emailSet) string {
	f, l := localPart(first), localPart(last)
	var local string
	switch n := r.IntN(100); {
	case n < 35:
		local = f + "." + l
	case n < 45:
		local = f + l
	case n < 57:
		local = f[:1] + l
	case n < 62:
		local = f + "_" + l
	case n < 72:
		local = f + "." + l + strconv.Itoa(r.IntN(100))
	case n < 80:
		local = f + strconv.Itoa(1960+r.IntN(46))
	case n < 85:
		local = l + "." + f
	case n < 90:
		local = f[:1] + "." + l
	default:
		local = f + "-" + l[:min(len(l), 3)] + strconv.Itoa(r.IntN(1000))
	}
	var domain string
	if r.IntN(100) < 14 {
		domain = companyDomains[r.IntN(len(companyDomains))]
	} else {
		domain = freeMailDomains[r.IntN(len(freeMailDomains))]
	}
	email := local + "@" + domain
	for used.has(email) {
		email = local + strconv.Itoa(r.IntN(10000)) + "@" + domain
	}
	// A few people type their address with capitals; lookups must not care.
	if r.IntN(100) < 3 {
		email = strings.ToUpper(email[:1]) + email[1:]
	}
	used.add(email)
	return email
}

// newAddress makes up a street address in country c.
func newAddress(r *rand.Rand, c *country) address {
	ci := c.cities[r.IntN(len(c.cities))]
	a := address{
		city:  ci.name,
		state: ci.state,
		zip:   pattern(r, ci.zip),
	}
	if c.code == "FR" || c.code == "ES" || c.code == "DE" || c.code == "SE" || c.code == "NO" ||
		c.code == "DK" || c.code == "FI" || c.code == "NL" || c.code == "CH" || c.code == "BR" {
		a.street = c.streets[r.IntN(len(c.streets))] + " " + strconv.Itoa(1+r.IntN(150))
	} else {
		a.street = strconv.Itoa(1+r.IntN(9800)) + " " + c.streets[r.IntN(len(c.streets))]
	}
	if r.IntN(100) < 18 {
		a.street2 = street2s[r.IntN(len(street2s))]
	}
	return a
}

// pattern fills a template: '#' becomes a digit, 'A' an upper-case letter, and any
// other character stays.
func pattern(r *rand.Rand, p string) string {
	b := []byte(p)
	for i, ch := range b {
		switch ch {
		case '#':
			b[i] = byte('0' + r.IntN(10))
		case 'A':
			b[i] = byte('A' + r.IntN(26))
		}
	}
	return string(b)
}

const alnum = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// code returns n random characters of an unambiguous alphabet, for keys and references.
func code(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[r.IntN(len(alnum))]
	}
	return string(b)
}

const hexDigits = "0123456789abcdef"

func hexString(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := 0; i < n; i += 16 {
		u := r.Uint64()
		for j := i; j < n && j < i+16; j++ {
			b[j] = hexDigits[u&15]
			u >>= 4
		}
	}
	return string(b)
}

// ipAddress returns a public-looking IPv4 address, or now and then an IPv6 one.
func ipAddress(r *rand.Rand) string {
	if r.IntN(10) == 0 {
		return "2001:db8:" + strconv.FormatUint(uint64(r.IntN(0x10000)), 16) + ":" +
			strconv.FormatUint(uint64(r.IntN(0x10000)), 16) + "::" + strconv.FormatUint(uint64(1+r.IntN(0xffff)), 16)
	}
	first := []int{24, 31, 45, 62, 73, 81, 84, 90, 98, 104, 109, 142, 151, 176, 185, 193, 203, 213}[r.IntN(18)]
	return strconv.Itoa(first) + "." + strconv.Itoa(r.IntN(256)) + "." + strconv.Itoa(r.IntN(256)) + "." + strconv.Itoa(1+r.IntN(254))
}
