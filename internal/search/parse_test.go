package search

import (
	"errors"
	"strings"
	"testing"

	"storefront/internal/shop"
)

func TestParse_Canonical(t *testing.T) {
	for _, tt := range []struct {
		kind    Kind
		in, out string
	}{
		{Purchases, `status:act`, `status:ACT`},
		{Purchases, `STATUS:act,Rfd`, `status:ACT,RFD`},
		{Purchases, `Email:zoe`, `email:zoe`},
		{Purchases, `email:"zoe m"`, `email:"zoe m"`},
		{Purchases, `email:"zoe"`, `email:zoe`},
		{Purchases, `email:"a\"b\\c"`, `email:"a\"b\\c"`},
		{Purchases, `email:a\b`, `email:a\b`},
		{Purchases, `email:a%_`, `email:a%_`},
		{Purchases, `email:a,"b c",d`, `email:a,"b c",d`},
		{Purchases, `email:a:b`, `email:a:b`},
		{Purchases, `email:"=x"`, `email:=x`},
		{Purchases, `first:zoë last:müller name:van`, `first:zoë last:müller name:van`},
		{Purchases, `domain:ACME.io`, `domain:ACME.io`},
		{Purchases, `currency:usd,eur`, `currency:USD,EUR`},
		{Purchases, `id:42`, `id:42`},
		{Purchases, `id:1,2,3`, `id:1,2,3`},
		{Purchases, `id>10 id>=11 id<12 id<=13`, `id>10 id>=11 id<12 id<=13`},
		{Purchases, `id:5..*`, `id:5..*`},
		{Purchases, `id:*..5`, `id:*..5`},
		{Purchases, `product:7 storefront:1 customer:2 subscriber:3`, `product:7 storefront:1 customer:2 subscriber:3`},
		{Purchases, `total>50`, `total>50`},
		{Purchases, `total:10..20`, `total:10..20`},
		{Purchases, `total:89.46`, `total:89.46`},
		{Purchases, `total<-3.25`, `total<-3.25`},
		{Purchases, `total:1,2.5`, `total:1,2.5`},
		{Purchases, `created>"last monday"`, `created>"last monday"`},
		{Purchases, `created:2024-11-01..2024-11-30`, `created:2024-11-01..2024-11-30`},
		{Purchases, `created>=-30days`, `created>=-30days`},
		{Purchases, `created:"2024-11-01".."today"`, `created:2024-11-01..today`},
		{Purchases, `created:*..yesterday`, `created:*..yesterday`},
		{Purchases, `created:2024-11-01,2024-11-03`, `created:2024-11-01,2024-11-03`},
		{Purchases, `ship:yes ship:NO`, `ship:yes ship:no`},
		{Purchases, `is:Unshipped is:shipped`, `is:unshipped is:shipped`},
		{Purchases, `zoe`, `zoe`},
		{Purchases, `"zoe m"`, `"zoe m"`},
		{Purchases, `"-zoe"`, `"-zoe"`},
		{Purchases, `"OR"`, `"OR"`},
		{Purchases, `"NOT"`, `"NOT"`},
		{Purchases, `"a:b"`, `"a:b"`},
		{Purchases, `"a,b"`, `"a,b"`},
		{Purchases, `42`, `42`},
		{Purchases, `or and not`, `or and not`},
		{Purchases, `NOTE ORE`, `NOTE ORE`},
		{Purchases, `a b c`, `a b c`},
		{Purchases, `a  OR  b`, `a OR b`},
		{Purchases, `a b OR c`, `a b OR c`},
		{Purchases, `a (b OR c)`, `a (b OR c)`},
		{Purchases, `(a b) c`, `a b c`},
		{Purchases, `(a OR b) OR c`, `a OR b OR c`},
		{Purchases, `((a OR b) c) OR d`, `(a OR b) c OR d`},
		{Purchases, `(((a)))`, `a`},
		{Purchases, `-a`, `-a`},
		{Purchases, `NOT a`, `-a`},
		{Purchases, `NOT(a OR b)`, `-(a OR b)`},
		{Purchases, `-(a b)`, `-(a b)`},
		{Purchases, `--a`, `--a`},
		{Purchases, `NOT -a`, `--a`},
		{Purchases, `-status:ACT`, `-status:ACT`},
		{Purchases, "a\tb\nc", `a b c`},
		{Subscribers, `status:past_due`, `status:PAST_DUE`},
		{Subscribers, `username:A@B.com email:ann`, `username:A@B.com email:ann`},
		{Subscribers, `started>2024-01-01 ended:2024-11-01..* active:today`, `started>2024-01-01 ended:2024-11-01..* active:today`},
		{Subscribers, `id>=3 ann`, `id>=3 ann`},
	} {
		t.Run(tt.in, func(t *testing.T) {
			q, err := Parse(tt.kind, tt.in)
			if err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			if got := q.String(); got != tt.out {
				t.Fatalf("got %s, want %s", got, tt.out)
			}
			q2, err := Parse(tt.kind, q.String())
			if err != nil {
				t.Fatalf("reparse: got %v, want no error", err)
			}
			if !Equal(q.Root, q2.Root) {
				t.Fatalf("reparse of %s gives another tree: %s", q, q2)
			}
		})
	}
}

func TestParse_Tree(t *testing.T) {
	t.Run("AndBindsTighterThanOr", func(t *testing.T) {
		q := MustParse(Purchases, "a b OR c")
		or, ok := q.Root.(*Or)
		if !ok || len(or.Terms) != 2 {
			t.Fatalf("got %#v, want an Or of two terms", q.Root)
		}
		if and, ok := or.Terms[0].(*And); !ok || len(and.Terms) != 2 {
			t.Fatalf("got %#v, want And(a, b) first", or.Terms[0])
		}
	})
	t.Run("TypedValues", func(t *testing.T) {
		q := MustParse(Purchases, `id:7 total:1.50..* status:rfd "77" x7`)
		and := q.Root.(*And)
		c := and.Terms[0].(*Clause)
		if c.Field != FieldID || c.Op != OpEq || c.Values[0].ID != 7 || c.Pos != 1 {
			t.Fatalf("got %+v, want id:7 at 1", c)
		}
		c = and.Terms[1].(*Clause)
		if c.Op != OpRange || c.Values[0].Text != "1.50" || !c.Values[1].Star || c.Values[0].Pos != 12 {
			t.Fatalf("got %+v, want the range 1.50..* at 12", c)
		}
		c = and.Terms[2].(*Clause)
		if c.Type != TypeStatus || c.Values[0].Text != "RFD" {
			t.Fatalf("got %+v, want status RFD", c)
		}
		if tx := and.Terms[3].(*Text); tx.ID != 77 || tx.Value.Text != "77" {
			t.Fatalf("got %+v, want text 77 naming id 77", tx)
		}
		if tx := and.Terms[4].(*Text); tx.ID != 0 {
			t.Fatalf("got %+v, want no id", tx)
		}
		if q.Clauses != 5 {
			t.Fatalf("got %d clauses, want 5", q.Clauses)
		}
	})
	t.Run("Positions", func(t *testing.T) {
		q := MustParse(Purchases, `ü email:"x"`)
		c := q.Root.(*And).Terms[1].(*Clause)
		if c.Pos != 3 || c.Values[0].Pos != 9 {
			t.Fatalf("got clause at %d value at %d, want 3 and 9 (characters, not bytes)", c.Pos, c.Values[0].Pos)
		}
	})
}

// errorCases are the error messages of the language, one per fault.
var errorCases = []struct {
	kind Kind
	in   string
	msg  string
}{
	{Purchases, ``, `the query is empty: expected a clause such as email:ann`},
	{Purchases, `   `, `the query is empty: expected a clause such as email:ann`},
	{Purchases, strings.Repeat("a", 513), `the query is 513 characters long: "a" at 513 is past the limit of 512 characters`},
	{Purchases, strings.Repeat("a ", 253) + "email:zoë@acme.io", `the query is 523 characters long: "zoë@acme.io" at 513 is past the limit of 512 characters`},
	{Purchases, strings.Repeat(" ", 501) + "name:éééééé", ``}, // 512 characters, more bytes
	{Purchases, "a\xffb", `the query is not valid UTF-8: byte 2 ("\xff") at 2 is no character`},
	{Purchases, "zoë\xc3", `the query is not valid UTF-8: byte 5 ("\xc3") at 4 is no character`},
	{Purchases, "a\x07b", `control character U+0007 at 2 is not allowed`},
	{Purchases, `emial:x`, `unknown field "emial" at 1: did you mean "email"?`},
	{Purchases, `zz:x`, `unknown field "zz" at 1: purchase fields are id, status, product, storefront, customer, subscriber, email, first, last, name, domain, currency, total, created, ship, is, ref, key`},
	{Purchases, `username:x`, `unknown field "username" at 1: username is a subscriber field, not a purchase field; purchase fields are id, status, product, storefront, customer, subscriber, email, first, last, name, domain, currency, total, created, ship, is, ref, key`},
	{Purchases, `a Active:today`, `unknown field "Active" at 3: active is a subscriber field, not a purchase field; purchase fields are id, status, product, storefront, customer, subscriber, email, first, last, name, domain, currency, total, created, ship, is, ref, key`},
	{Subscribers, `total:1`, `unknown field "total" at 1: total is a purchase field, not a subscriber field; subscriber fields are id, status, email, username, started, ended, active`},
	{Subscribers, `-domain:acme.io`, `unknown field "domain" at 2: domain is a purchase field, not a subscriber field; subscriber fields are id, status, email, username, started, ended, active`},
	{Purchases, `a b:c`, `unknown field "b" at 3: purchase fields are id, status, product, storefront, customer, subscriber, email, first, last, name, domain, currency, total, created, ship, is, ref, key`},
	{Purchases, `:x`, `missing field name before ':' at 1: write field:value`},
	{Purchases, `"last mundane"`, ``}, // bare quoted text is fine
	{Purchases, `created>"last mundane"`, `"last mundane" at 9 is not a date`},
	{Purchases, `status>ACT`, `operator ">" at 7 does not apply to status: write status:value`},
	{Purchases, `email<=a`, `operator "<=" at 6 does not apply to email: write email:value`},
	{Purchases, `email:a..b`, `range at 7 does not apply to email: give one value or a list a,b`},
	{Purchases, `ship:yes,no`, `list at 6 does not apply to ship: give one value`},
	{Purchases, `total>1,2`, `list at 7 cannot follow ">": compare with one value`},
	{Purchases, `total>1..2`, `range at 7 cannot follow ">": write total:a..b`},
	{Purchases, `email:`, `missing value at 7: expected a value after "email:"`},
	{Purchases, `email: zoe`, `missing value at 7: expected a value after "email:"`},
	{Purchases, `(email:)`, `missing value at 8: expected a value after "email:"`},
	{Purchases, `total>=`, `missing value at 8: expected a value after "total>="`},
	{Purchases, `email:""`, `empty value at 7: expected some text between the quotes`},
	{Purchases, `""`, `empty quoted text at 1: expected some text between the quotes`},
	{Purchases, `email:a,`, `empty item in the list at 9: expected a value after ","`},
	{Purchases, `email:a,,b`, `empty item in the list at 9: expected a value after ","`},
	{Purchases, `email:,a`, `missing value at 7: expected a value after "email:"`},
	{Purchases, `total:1..`, `range at 7 has no end: write a..b, or a..* for no end`},
	{Purchases, `total:..1`, `range at 7 has no start: write a..b, or *..b for no start`},
	{Purchases, `total:*..*`, `range "*..*" at 7 has no bounds: give at least one side`},
	{Purchases, `total:1..2..3`, `".." at 11: a range has two sides and is not part of a list`},
	{Purchases, `total:1,2..3`, `".." at 10: a range has two sides and is not part of a list`},
	{Purchases, `total:1..2,3`, `"," at 11 follows a range: a range cannot be part of a list`},
	{Purchases, `total:20..10`, `range "20..10" at 7 ends before it starts`},
	{Purchases, `id:9..3`, `range "9..3" at 4 ends before it starts`},
	{Purchases, `id:0`, `"0" at 4 is not an id: ids are whole numbers from 1, such as 42`},
	{Purchases, `product:07`, `"07" at 9 is not an id: ids are whole numbers from 1, such as 42`},
	{Purchases, `customer:9223372036854775808`, `"9223372036854775808" at 10 is not an id: ids are whole numbers from 1, such as 42`},
	{Purchases, `id:*`, `"*" at 4 is not an id: ids are whole numbers from 1, such as 42`},
	{Purchases, `status:ACTIVE`, `"ACTIVE" at 8 is not a purchase status: use ACT, PND, RFD, ERR, CAN or HLD`},
	{Subscribers, `status:ACT`, `"ACT" at 8 is not a subscriber status: use NEW, TRIAL, ACTIVE, CANCELED, CLOSED or PAST_DUE`},
	{Purchases, `currency:dollar`, `"dollar" at 10 is not a currency: use an ISO 4217 code such as USD or EUR`},
	{Purchases, `total:1,5e3`, `"5e3" at 9 is not an amount: use a decimal number such as 10 or 10.50`},
	{Purchases, `total:"10 "`, `"10 " at 7 is not an amount: use a decimal number such as 10 or 10.50`},
	{Purchases, `ship:maybe`, `"maybe" at 6 is not a ship value: use ship:yes or ship:no`},
	{Purchases, `ship:1`, `"1" at 6 is not a ship value: use ship:yes or ship:no`},
	{Purchases, `is:paid`, `"paid" at 4 is not a state: use is:unshipped or is:shipped`},
	{Purchases, `domain:a@acme.io`, `"a@acme.io" at 8 is not a domain: write the part after "@", such as acme.io`},
	{Purchases, `created:*`, `"*" at 9 is not a date`},
	{Purchases, `a OR`, `"OR" at 3 has no clause after it`},
	{Purchases, `a OR )`, `"OR" at 3 has no clause after it`},
	{Purchases, `OR a`, `"OR" at 1 has no clause before it`},
	{Purchases, `a OR OR b`, `"OR" at 3 has no clause after it`},
	{Purchases, `(OR a)`, `"OR" at 2 has no clause before it`},
	{Purchases, `a NOT`, `"NOT" at 3 has no clause after it`},
	{Purchases, `NOT OR a`, `"NOT" at 1 has no clause after it`},
	{Purchases, `- a`, `"-" at 1 has no clause after it: write -field:value`},
	{Purchases, `a -`, `"-" at 3 has no clause after it: write -field:value`},
	{Purchases, `-OR a`, `"-" at 1 is followed by OR: expected a clause`},
	{Purchases, `(a`, `unclosed "(" at 1: expected ")"`},
	{Purchases, `(`, `unclosed "(" at 1: expected a clause and ")"`},
	{Purchases, `a)`, `unexpected ")" at 2: there is no "(" to close`},
	{Purchases, `()`, `empty parentheses at 1: expected a clause inside "()"`},
	{Purchases, `((((a))))`, `"(" at 4 nests deeper than 3 levels of parentheses`},
	{Purchases, `(a)b`, `unexpected 'b' at 4 after ")": expected a space`},
	{Purchases, `a(b)`, `unexpected '(' at 2: expected a space between clauses`},
	{Purchases, `"a"b`, `unexpected 'b' at 4 after a quoted string: expected a space or ")"`},
	{Purchases, `email:"a"b`, `unexpected 'b' at 10 after a quoted string: expected a space, ")", "," or ".."`},
	{Purchases, `"abc`, `unclosed quote at 1: expected a closing "`},
	{Purchases, `email:"a\`, `unclosed quote at 7: expected a closing "`},
	{Purchases, `"a\nb"`, `unknown escape "\n" at 3: only \" and \\ are allowed in quotes`},
	{Purchases, `ab"cd"`, `unexpected quote at 3 inside the word "ab": quote the whole text`},
	{Purchases, `email:ab"cd"`, `unexpected quote at 9 inside a value: quote the whole value`},
	{Purchases, `smith,jones`, `"smith,jones" at 1 is a list without a field: write a field, e.g. email:smith,jones, or quote the text`},
	{Purchases, `10..20`, `"10..20" at 1 is a range without a field: write a field, e.g. total:10..20, or quote the text`},
	{Purchases, `email:` + strings.Repeat("x", 256), `the value "` + strings.Repeat("x", 64) + `…" at 7 is longer than 255 characters`},
	{Purchases, `"` + strings.Repeat("x", 256) + `"`, `the text "` + strings.Repeat("x", 64) + `…" at 1 is longer than 255 characters`},
	{Purchases, strings.TrimSpace(strings.Repeat("a ", 20)), ``},
	{Purchases, strings.TrimSpace(strings.Repeat("a ", 21)), `"a" at 41 is clause 21: at most 20 clauses are allowed (bare words count)`},
	{Purchases, strings.Repeat("status:act,pnd ", 20) + `(email:"a b" OR x)`, `"email:\"a b\"" at 302 is clause 21: at most 20 clauses are allowed (bare words count)`},
	{Purchases, `(a OR b) (c OR d) (e OR f)`, ``}, // 8: the most allowed
	{Purchases, `(a OR b) (c OR d) (e OR f) OR g`, `"g" at 31 takes the query past 8 alternatives (OR branches, with negations expanded): at most 8 are allowed`},
	{Purchases, `a OR b OR c OR d OR e OR f OR g OR h OR i`, `"i" at 41 takes the query past 8 alternatives (OR branches, with negations expanded): at most 8 are allowed`},
	{Purchases, `x OR (a (b OR c) (d OR e) (f OR g) (h OR i))`, `"(h OR i)" at 36 takes the query past 8 alternatives (OR branches, with negations expanded): at most 8 are allowed`},
	{Purchases, `-(a b) -(c d) -(e f) -(g h)`, `"-(g h)" at 22 takes the query past 8 alternatives (OR branches, with negations expanded): at most 8 are allowed`},
	{Purchases, `-(a OR b) -(c OR d) -(e OR f) -(g OR h) -(i OR j)`, ``}, // negated ORs are ANDs
	{Purchases, `(a OR b OR c) (d OR e OR f)`, `"(d OR e OR f)" at 15 takes the query past 8 alternatives (OR branches, with negations expanded): at most 8 are allowed`},
	{Purchases, `-(a b c d e f g h i)`, `"i" at 19 takes the query past 8 alternatives (OR branches, with negations expanded): at most 8 are allowed`},
}

func TestParse_Errors(t *testing.T) {
	for _, tt := range errorCases {
		name := tt.in
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			_, err := Parse(tt.kind, tt.in)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			var e *shop.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a *shop.Error", err)
			}
			if e.Code != shop.EInvalid || e.Param != "q" {
				t.Fatalf("got code %s param %s, want %s q", e.Code, e.Param, shop.EInvalid)
			}
			if e.Message != tt.msg {
				t.Fatalf("got %s, want %s", e.Message, tt.msg)
			}
		})
	}
}
