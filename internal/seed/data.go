package seed

import (
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The word lists the generator draws from. They are plain data: realistic names
// (accented ones included, so that accent-insensitive search can be tried), catalogs
// of products for the demo storefronts, addresses per country, and the vocabulary of
// payment gateways and carriers.

// firstNames are buyers' given names from many languages.
var firstNames = []string{
	"James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William", "Elizabeth",
	"David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen",
	"Christopher", "Nancy", "Daniel", "Lisa", "Matthew", "Betty", "Anthony", "Margaret", "Mark", "Sandra",
	"Emily", "Olivia", "Emma", "Ava", "Sophia", "Isabella", "Mia", "Charlotte", "Amelia", "Harper",
	"Liam", "Noah", "Oliver", "Elijah", "Lucas", "Mason", "Logan", "Ethan", "Aiden", "Jackson",
	"Zoë", "Chloé", "Renée", "Noël", "Inès", "Anaïs", "Héloïse", "François", "Jérôme", "Gaëlle",
	"José", "María", "Jesús", "Ángel", "Sofía", "Lucía", "Martín", "Andrés", "Raúl", "Inés",
	"Björn", "Åsa", "Göran", "Linnéa", "Måns", "Sören", "Ångela", "Örjan", "Märta", "Ulf",
	"Søren", "Jørgen", "Bjørn", "Mette", "Sigrid", "Ingrid", "Freja", "Astrid", "Nils", "Lars",
	"Jürgen", "Jörg", "Günther", "Uwe", "Käthe", "Bärbel", "Lukas", "Lena", "Jonas", "Hannah",
	"Łukasz", "Małgorzata", "Paweł", "Agnieszka", "Tomáš", "Jiří", "Zuzana", "Václav", "Eszter", "Gábor",
	"Yuki", "Haruto", "Sakura", "Ren", "Aoi", "Takumi", "Yui", "Sota", "Hina", "Kenji",
	"Wei", "Mei", "Jun", "Min-jun", "Seo-yeon", "Priya", "Arjun", "Aarav", "Ananya", "Rohan",
	"Olumide", "Chidi", "Amara", "Kwame", "Fatima", "Omar", "Leila", "Youssef", "Aylin", "Emre",
	"Siobhán", "Seán", "Niamh", "Aoife", "Pádraig", "João", "Conceição", "Thiago", "Gonçalo", "Beatriz",
}

// lastNames are buyers' family names from many languages.
var lastNames = []string{
	"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
	"Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
	"Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
	"Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
	"Müller", "Schröder", "Schäfer", "Köhler", "Weiß", "Groß", "Krüger", "Hoffmann", "Schneider", "Fischer",
	"Ångström", "Sjögren", "Lindqvist", "Åberg", "Öberg", "Nyström", "Bäckström", "Håkansson", "Johansson", "Andersson",
	"Sørensen", "Jørgensen", "Kristiansen", "Møller", "Løvborg", "Virtanen", "Mäkinen", "Hämäläinen", "Korhonen", "Niemi",
	"Lefèvre", "Dupré", "Bélanger", "Gagné", "Côté", "Lévesque", "Ménard", "Moreau", "Girard", "Rousseau",
	"Núñez", "Gómez", "Pérez", "Sánchez", "Jiménez", "Martínez", "Fernández", "Rodríguez", "Muñoz", "Ibáñez",
	"Öztürk", "Yılmaz", "Çelik", "Şahin", "Doğan", "Nowak", "Wiśniewski", "Wójcik", "Kowalczyk", "Dvořák",
	"Novák", "Černý", "Horváth", "Szabó", "Tanaka", "Suzuki", "Takahashi", "Watanabe", "Itō", "Yamamoto",
	"Kim", "Park", "Chen", "Wang", "Li", "Zhang", "Patel", "Sharma", "Singh", "Gupta",
	"O'Brien", "O'Connor", "Ó Súilleabháin", "MacDonald", "McCarthy", "Silva", "Santos", "Conceição", "Gonçalves", "Araújo",
	"van der Berg", "de Vries", "Janssen", "Bakker", "Visser", "Okafor", "Mensah", "Haddad", "Nasser", "Rossi",
}

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

// parseCatalogs reads catalogs.tsv: after a "catalog" line, its products and plans,
// a line each, with their fields separated by tabs; "#" starts a comment line. The
// table is part of the program, so a malformed line is a bug: it panics.
func parseCatalogs(text string) []catalog {
	var out []catalog
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, "\t")
		name, rest, _ := strings.Cut(rest, "\t")
		var err error
		switch {
		case kind == "catalog":
			out = append(out, catalog{})
		case len(out) == 0:
			err = errors.New("a product or plan before the first catalog")
		case kind == "product":
			p := product{name: name}
			err = scanFields(rest, &p.usdCents, &p.tangible, &p.keyed, &p.weight)
			out[len(out)-1].products = append(out[len(out)-1].products, p)
		case kind == "plan":
			p := plan{name: name}
			err = scanFields(rest, &p.usdCents, &p.period, &p.unit, &p.trialCents, &p.trialPeriod, &p.trialUnit)
			p.trialUnit = strings.TrimPrefix(p.trialUnit, "-")
			out[len(out)-1].plans = append(out[len(out)-1].plans, p)
		default:
			err = fmt.Errorf("%q is no catalog, product or plan line", line)
		}
		if err != nil {
			panic(fmt.Sprintf("catalogs.tsv:%d: %v", n+1, err))
		}
	}
	return out
}

// scanFields reads tab-separated fields into dst: *string, *bool, *int or *int64.
func scanFields(fields string, dst ...any) error {
	f := strings.Split(fields, "\t")
	if len(f) != len(dst) {
		return fmt.Errorf("%d fields, want %d", len(f), len(dst))
	}
	for i, d := range dst {
		var err error
		switch d := d.(type) {
		case *string:
			*d = f[i]
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

var countries = []country{
	{"US", "United States", []city{
		{"New York", "NY", "100##"}, {"Brooklyn", "NY", "112##"}, {"Los Angeles", "CA", "900##"},
		{"San Francisco", "CA", "941##"}, {"Seattle", "WA", "981##"}, {"Austin", "TX", "787##"},
		{"Chicago", "IL", "606##"}, {"Portland", "OR", "972##"}, {"Denver", "CO", "802##"},
		{"Miami", "FL", "331##"}, {"Boston", "MA", "021##"}, {"Atlanta", "GA", "303##"},
	}, []string{"Main St", "Oak Ave", "Maple Dr", "Broadway", "Elm St", "Sunset Blvd", "Pine St", "Washington Ave", "Lakeview Rd", "2nd Ave"},
		"+1 ###-###-####", 725, []string{"USPS", "UPS", "FedEx"}, 40},
	{"CA", "Canada", []city{
		{"Toronto", "ON", "M#A #A#"}, {"Montréal", "QC", "H#A #A#"}, {"Vancouver", "BC", "V#A #A#"}, {"Québec", "QC", "G#A #A#"},
	}, []string{"rue Sainte-Catherine", "Yonge St", "Granville St", "boulevard René-Lévesque", "Queen St W"},
		"+1 ###-###-####", 1300, []string{"Canada Post", "UPS"}, 6},
	{"GB", "United Kingdom", []city{
		{"London", "", "SW# #AA"}, {"Manchester", "", "M# #AA"}, {"Edinburgh", "", "EH# #AA"}, {"Bristol", "", "BS# #AA"},
	}, []string{"High Street", "Station Road", "Church Lane", "Victoria Road", "Park Avenue"},
		"+44 7### ######", 2000, []string{"Royal Mail", "DHL"}, 7},
	{"DE", "Germany", []city{
		{"Berlin", "BE", "10###"}, {"München", "BY", "80###"}, {"Köln", "NW", "50###"}, {"Düsseldorf", "NW", "40###"}, {"Hamburg", "HH", "20###"},
	}, []string{"Hauptstraße", "Schillerstraße", "Goethestraße", "Lindenallee", "Bahnhofstraße", "Müllerstraße"},
		"+49 1## #######", 1900, []string{"DHL", "Hermes", "DPD"}, 9},
	{"FR", "France", []city{
		{"Paris", "", "750##"}, {"Lyon", "", "690##"}, {"Marseille", "", "130##"}, {"Nantes", "", "440##"},
	}, []string{"rue de la Paix", "avenue des Champs-Élysées", "rue Victor Hugo", "boulevard Saint-Germain", "rue de l'Église"},
		"+33 6 ## ## ## ##", 2000, []string{"La Poste", "Chronopost", "DHL"}, 5},
	{"ES", "Spain", []city{
		{"Madrid", "M", "280##"}, {"Barcelona", "B", "080##"}, {"Sevilla", "SE", "410##"}, {"Valencia", "V", "460##"},
	}, []string{"Calle Mayor", "Avenida de la Constitución", "Calle de Alcalá", "Paseo de Gràcia", "Calle Real"},
		"+34 6## ### ###", 2100, []string{"Correos", "SEUR", "DHL"}, 4},
	{"SE", "Sweden", []city{
		{"Stockholm", "AB", "1## ##"}, {"Göteborg", "O", "4## ##"}, {"Malmö", "M", "2## ##"}, {"Uppsala", "C", "75# ##"}, {"Umeå", "AC", "90# ##"},
	}, []string{"Drottninggatan", "Storgatan", "Kungsgatan", "Vasagatan", "Sveavägen", "Götgatan"},
		"+46 7# ### ## ##", 2500, []string{"PostNord", "DHL", "Budbee"}, 7},
	{"NO", "Norway", []city{
		{"Oslo", "03", "0###"}, {"Bergen", "46", "50##"}, {"Tromsø", "55", "90##"}, {"Trondheim", "50", "70##"},
	}, []string{"Karl Johans gate", "Storgata", "Bryggen", "Kirkegata", "Strandveien"},
		"+47 4## ## ###", 2500, []string{"Posten", "PostNord"}, 3},
	{"DK", "Denmark", []city{
		{"København", "84", "1###"}, {"Aarhus", "82", "8000"}, {"Odense", "83", "5000"},
	}, []string{"Strøget", "Nørregade", "Vesterbrogade", "Østergade", "Søndergade"},
		"+45 ## ## ## ##", 2500, []string{"PostNord", "GLS"}, 2},
	{"FI", "Finland", []city{
		{"Helsinki", "18", "00###"}, {"Tampere", "11", "33###"}, {"Turku", "19", "20###"},
	}, []string{"Mannerheimintie", "Aleksanterinkatu", "Hämeenkatu", "Esplanadi"},
		"+358 40 ### ####", 2550, []string{"Posti", "DHL"}, 2},
	{"NL", "Netherlands", []city{
		{"Amsterdam", "NH", "10## AA"}, {"Rotterdam", "ZH", "30## AA"}, {"Utrecht", "UT", "35## AA"},
	}, []string{"Prinsengracht", "Keizersgracht", "Damrak", "Kalverstraat", "Coolsingel"},
		"+31 6 ########", 2100, []string{"PostNL", "DHL"}, 3},
	{"JP", "Japan", []city{
		{"Tōkyō", "13", "1##-####"}, {"Ōsaka", "27", "5##-####"}, {"Kyōto", "26", "6##-####"}, {"Sapporo", "01", "0##-####"}, {"Fukuoka", "40", "8##-####"},
	}, []string{"Chūō-dōri", "Meiji-dōri", "Omotesandō", "Aoyama-dōri", "Shijō-dōri"},
		"+81 90-####-####", 1000, []string{"Japan Post", "Yamato Transport", "Sagawa Express"}, 6},
	{"AU", "Australia", []city{
		{"Sydney", "NSW", "2###"}, {"Melbourne", "VIC", "3###"}, {"Brisbane", "QLD", "4###"},
	}, []string{"George St", "Collins St", "Queen St", "Chapel St"},
		"+61 4## ### ###", 1000, []string{"Australia Post", "DHL"}, 3},
	{"BR", "Brazil", []city{
		{"São Paulo", "SP", "01###-###"}, {"Rio de Janeiro", "RJ", "20###-###"}, {"Belo Horizonte", "MG", "30###-###"},
	}, []string{"Avenida Paulista", "Rua Augusta", "Rua das Flores", "Avenida Atlântica"},
		"+55 11 9####-####", 0, []string{"Correios", "DHL"}, 2},
	{"CH", "Switzerland", []city{
		{"Zürich", "ZH", "80##"}, {"Genève", "GE", "12##"}, {"Bern", "BE", "30##"},
	}, []string{"Bahnhofstrasse", "Rue du Rhône", "Marktgasse", "Limmatquai"},
		"+41 7# ### ## ##", 810, []string{"Swiss Post", "DHL"}, 2},
}

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
