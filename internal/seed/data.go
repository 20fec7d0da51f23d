package seed

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// The word lists the generator draws from. They are plain data: realistic names
// (accented ones included, so that accent-insensitive search can be tried), catalogs
// of products for the demo storefronts, addresses per country, and the vocabulary of
// payment gateways and carriers.

// firstNames are buyers' given names from many languages.
var firstNames = wordList(firstNamesText)

//go:embed first_names.txt
var firstNamesText string

// lastNames are buyers' family names from many languages.
var lastNames = wordList(lastNamesText)

//go:embed last_names.txt
var lastNamesText string

// freeMailDomains are common mailbox providers; companyDomains stand for work addresses.
var freeMailDomains = []string{
	"gmail.com", "gmail.com", "gmail.com", "gmail.com", "yahoo.com", "outlook.com", "hotmail.com",
	"icloud.com", "proton.me", "fastmail.com", "aol.com", "gmx.de", "web.de", "t-online.de",
	"orange.fr", "free.fr", "laposte.net", "telia.com", "live.se", "bredband.net", "yahoo.co.jp",
	"docomo.ne.jp", "comcast.net", "btinternet.com", "hey.com", "mail.ru", "libero.it", "seznam.cz",
	"wp.pl", "naver.com", "qq.com", "yandex.com", "zoho.com", "me.com", "googlemail.com",
}

var companyDomains = []string{
	"acme.io", "studio-north.se", "brightpixel.co", "typeworks.de", "indiegames.jp", "soundforge.fm",
	"northwind.com", "contoso.com", "fabrikam.net", "initech.com", "globex.org", "umbrella.dev",
	"hooli.xyz", "piedpiper.com", "vandelay.biz", "massive-dynamic.com", "aperture.science", "wayne.co",
}

// product is one catalog entry. Prices are in US cents and converted to the
// storefront's currency; tangible products need shipping; keyed ones are delivered
// with product keys.
type product struct {
	name     string
	usdCents int64
	tangible bool
	keyed    bool
	// weight is the relative popularity when a product is picked for a line item.
	weight int
}

// plan is a subscription plan of a storefront.
type plan struct {
	name        string
	usdCents    int64
	period      int
	unit        string
	trialCents  int64
	trialPeriod int
	trialUnit   string // "" when the plan has no trial
}

// catalog is the product range of one demo storefront.
type catalog struct {
	products []product
	plans    []plan
}

// catalogs are the demo storefronts' ranges, in the order of the tenancy layout
// (Pixel Fonts, Sound Packs, Nordic Games, Color Picker). Existing storefronts that are
// not ours take the first three in turn; the last holds one product and no plans.
var catalogs = parseCatalogs(catalogsTSV)

//go:embed catalogs.tsv
var catalogsTSV string

// parseCatalogs reads catalogs.tsv: a "catalog" line, then that catalog's products
// and plans.
func parseCatalogs(text string) []catalog {
	return parseGroups("catalogs.tsv", text, "catalog", func([]string) (catalog, error) { return catalog{}, nil },
		func(c *catalog, kind string, f []string) error {
			switch kind {
			case "product":
				return addRow(&c.products, f, func(p *product) []any { return []any{&p.name, &p.usdCents, &p.tangible, &p.keyed, &p.weight} })
			case "plan":
				return addRow(&c.plans, f, func(p *plan) []any {
					return []any{&p.name, &p.usdCents, &p.period, &p.unit, &p.trialCents, &p.trialPeriod, &p.trialUnit}
				})
			}
			return fmt.Errorf("%q is no product or plan line", kind)
		})
}

// parseCountries reads countries.tsv: a "country" line, then that country's cities,
// streets and carriers.
func parseCountries(text string) []country {
	return parseGroups("countries.tsv", text, "country", func(f []string) (country, error) {
		var c country
		err := scanFields(f, &c.code, &c.name, &c.phone, &c.tax, &c.weight)
		return c, err
	}, func(c *country, kind string, f []string) error {
		switch kind {
		case "city":
			return addRow(&c.cities, f, func(ct *city) []any { return []any{&ct.name, &ct.state, &ct.zip} })
		case "streets":
			c.streets = f
		case "carriers":
			c.carriers = f
		default:
			return fmt.Errorf("%q is no city, streets or carriers line", kind)
		}
		return nil
	})
}

// parseGroups reads a table (parseTable) of groups: a line of the kind group starts
// one, made by start from the line's fields; add adds the lines after it to it.
func parseGroups[T any](file, text, group string, start func(fields []string) (T, error), add func(g *T, kind string, fields []string) error) []T {
	var out []T
	parseTable(file, text, func(kind string, f []string) error {
		if kind == group {
			g, err := start(f)
			out = append(out, g)
			return err
		}
		if len(out) == 0 {
			return fmt.Errorf("a %s line before the first %s", kind, group)
		}
		return add(&out[len(out)-1], kind, f)
	})
	return out
}

// addRow appends to *list a row read from fields through the destinations dst gives.
func addRow[T any](list *[]T, fields []string, dst func(*T) []any) error {
	var v T
	err := scanFields(fields, dst(&v)...)
	*list = append(*list, v)
	return err
}

// parseTable reads a table of this package (catalogs.tsv, countries.tsv): a row a
// line, its kind and then its fields, separated by tabs; "#" starts a comment line.
// The tables are part of the program, so a malformed row is a bug: it panics.
func parseTable(file, text string, row func(kind string, fields []string) error) {
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, "\t")
		if err := row(kind, strings.Split(rest, "\t")); err != nil {
			panic(fmt.Sprintf("%s:%d: %v", file, n+1, err))
		}
	}
}

// wordList reads a list of words or names, one a line; "#" starts a comment line.
func wordList(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// scanFields reads fields into dst: *string ("-" for ""), *bool, *int or *int64.
func scanFields(f []string, dst ...any) error {
	if len(f) != len(dst) {
		return fmt.Errorf("%d fields, want %d", len(f), len(dst))
	}
	for i, d := range dst {
		var err error
		switch d := d.(type) {
		case *string:
			if *d = f[i]; *d == "-" {
				*d = ""
			}
		case *bool:
			*d, err = strconv.ParseBool(f[i])
		case *int:
			*d, err = strconv.Atoi(f[i])
		case *int64:
			*d, err = strconv.ParseInt(f[i], 10, 64)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// currencyPerUSD converts catalog prices; currencies not listed use one unit per dollar.
var currencyPerUSD = map[string][2]int64{ // numerator, denominator
	"USD": {1, 1}, "EUR": {92, 100}, "GBP": {79, 100}, "JPY": {150, 1}, "SEK": {105, 10},
	"NOK": {107, 10}, "DKK": {69, 10}, "CAD": {137, 100}, "AUD": {153, 100}, "CHF": {88, 100},
	"KWD": {31, 100},
}

// country describes where a buyer lives: cities with state codes and postal codes,
// and how phones and streets look there.
type country struct {
	code, name string
	cities     []city
	streets    []string
	phone      string // pattern: '#' is a digit
	tax        int64  // sales tax or VAT in basis points
	carriers   []string
	weight     int
}

type city struct{ name, state, zip string } // zip: '#' digit, 'A' letter

// countries are where buyers live.
var countries = parseCountries(countriesTSV)

//go:embed countries.tsv
var countriesTSV string

var street2s = []string{"Apt 4B", "Suite 210", "Unit 12", "Floor 3", "c/o Reception", "Building C", "Apt 1102", "2nd floor", "Box 17"}

var businessNames = []string{
	"Studio Nord AB", "Brightside Design LLC", "Köhler & Söhne GmbH", "Atelier Lumière SARL", "Pixel Forge Ltd",
	"Sakura Interactive K.K.", "Blue Fjord AS", "Café Ñandú S.L.", "Acme Widgets Inc.", "Hämäläinen Games Oy",
}

// gateways and their messages.
var gateways = []string{"Stripe", "Stripe", "Stripe", "PayPal", "PayPal", "Braintree", "Authorize.Net"}

var cardTypes = []string{"Visa", "Visa", "Visa", "MasterCard", "MasterCard", "American Express", "Discover", "JCB"}

var cardLast4 = []string{"4242", "1881", "0005", "4444", "5100", "8431", "0019", "1117", "3220", "9424", "7700", "2150", "6789", "1234"}

var declineMessages = []string{
	"Your card was declined.", "Insufficient funds.", "Do not honor.", "The card's security code is incorrect.",
	"Card expired.", "Gateway timeout; please try again.", "Transaction flagged by fraud screening.",
	"Invalid account number.", "Processor unavailable.",
}

var customerNotes = []string{
	"Please send the invoice to our accounting department.",
	"This is a gift — please don't include the receipt.",
	"Can you ship before Friday? It's for a birthday.",
	"Bought this for my team; license holder should be our company.",
	"Leave the parcel with the neighbour if I'm not home.",
	"Merci beaucoup ! J'adore vos polices.",
	"Tack för snabb leverans förra gången!",
	"Bitte keine Werbung beilegen.",
	"よろしくお願いします。",
	"Is there an educational discount? I'm a student.",
	"Please gift-wrap the physical items.",
	"My previous download link expired, thanks for the new one.",
}

// customFieldQuestions and their possible answers.
var customFieldQuestions = []struct {
	label   string
	answers []string
}{
	{"How did you hear about us?", []string{"Twitter", "A friend", "YouTube review", "Search engine", "Newsletter", "Reddit", "Mastodon", "Podcast"}},
	{"Company name", []string{"Studio Nord AB", "Brightside Design", "Freelance", "Köhler & Söhne GmbH", "Self-employed", "Université de Montréal"}},
	{"License holder", []string{"Personal use", "Company", "Agency (client work)", "Education"}},
	{"Gift message", []string{"Happy birthday!", "Grattis på födelsedagen!", "Merry Christmas 🎄", "Congrats on the launch!", "Alles Gute!"}},
	{"Discord username", []string{"pixelpusher#0420", "zoë_plays", "fjordviking", "lofi-larry", "nightowl"}},
	{"VAT number (optional)", []string{"SE556677889901", "DE123456789", "FR40303265045", "", "n/a"}},
}

// couponDefs are the coupons buyers redeem: money coupons give an amount in US cents,
// converted to the purchase currency; percent coupons keep their percentage as given.
var couponDefs = []struct {
	name, code string
	percent    string // "" for a money coupon
	usdCents   int64
}{
	{"Welcome 10%", "WELCOME10", "10", 0},
	{"Black Friday", "BF2025", "30", 0},
	{"Spring Sale", "SPRING15", "15", 0},
	{"Newsletter Subscriber", "NEWS12", "12.5", 0},
	{"Student Discount", "STUDENT20", "20", 0},
	{"Five Off", "FIVEOFF", "", 500},
	{"Loyalty Reward", "THANKYOU", "", 1000},
	{"Bundle Saver", "BUNDLE25", "", 2500},
	{"Launch Week", "LAUNCH", "25", 0},
	{"Influencer Code", "ZOË5", "5", 0},
}
