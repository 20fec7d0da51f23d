package mysql

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/internal/search"
	"storefront/internal/shop"
)

// The statement shapes of the purchase and subscriber list planners, enumerated
// (docs/SCALING.md, "Every shape the planners produce"), so that the Vitess check
// plans every shape they can send and not only those the web tests happen to:
//
//   - clauses: every field of the search language (search.Fields) with every operator
//     its type allows (Type.Ops; a range also open on either side), each sample value
//     of the type, alone and negated, and a bare word and a bare number;
//   - bases: one filter for each access path the planner chooses for a clause alone
//     or for two clauses together, with no filter first (the list's walk);
//   - each base with each clause, as the language fills a filter field with it and as a
//     residual condition (shop.Cond in Where), each base alone, and each clause or base
//     in a union (OR) with another branch;
//   - each of those filters planned every way the data can make the planner choose
//     (planOutcomes), and built into the statements every list sends with it: the API's
//     page (FindPurchaseDocuments), the dashboard's page and its count
//     (FindPurchases, CountPurchases), the CSV export, a union's counts, branches and
//     page, and the plan's own statements;
//   - in every paging, order and count (pageVariants): each base alone in all of them,
//     and each base with each clause in one, taken in turn (the i-th base with the j-th
//     clause in the (i+j)-th variant), so that each base meets every variant with the
//     clauses, and each clause one variant per base.
//
// A new access path, filter field, search field or operator is enumerated without an
// edit here; TestStatementShapes_EveryAccessPath fails when a path of pathNames or a
// filter field is never produced, and a search type without samples is an error.

// ShapeStatement is one enumerated statement and what sends it.
type ShapeStatement struct {
	Origin string
	Statement
}

// shapeSamples are values of each type of the search language: every value is
// compared and equalled, the first two make a list and a range. They include what
// changes a plan: a one-letter prefix (the initials), and totals with fewer bands
// below them than maxBandBranches and with more.
var shapeSamples = map[search.Type][]string{
	search.TypeText:     {"j", "jo"},
	search.TypeExact:    {"ann@acme.io", "bo@acme.io"},
	search.TypeDomain:   {"acme.io", "b.io"},
	search.TypeID:       {"5", "9"},
	search.TypeRef:      {"5", "9"},
	search.TypeCurrency: {"EUR", "USD"},
	search.TypeMoney:    {"5", "250"},
	search.TypeDate:     {"2024-11-01", "2024-11-30"},
	search.TypeShip:     {"yes", "no"},
	search.TypeIs:       {"unshipped", "shipped"},
}

// samples returns the sample values of a field's type in a language.
func samples(kind search.Kind, t search.Type) ([]string, error) {
	if t == search.TypeStatus {
		var out []string
		if kind == search.Subscribers {
			for _, s := range shop.SubscriptionStatuses[:2] {
				out = append(out, string(s))
			}
		} else {
			for _, s := range shop.PurchaseStatuses[:2] {
				out = append(out, string(s))
			}
		}
		return out, nil
	}
	v := shapeSamples[t]
	if len(v) < 2 {
		return nil, fmt.Errorf("shapeSamples: no two sample values of search type %d", t)
	}
	return v, nil
}

// shapeClauses returns every clause of the language: each field with each operator and
// sample value, a bare word and a bare number, and each of them negated.
func shapeClauses(kind search.Kind) ([]string, error) {
	out := []string{"jo", "42"}
	for _, fs := range search.Fields(kind) {
		vals, err := samples(kind, fs.Type)
		if err != nil {
			return nil, err
		}
		name := string(fs.Name)
		for _, op := range fs.Type.Ops() {
			switch op {
			case search.OpEq:
				for _, v := range vals {
					out = append(out, name+":"+v)
				}
			case search.OpAny:
				out = append(out, name+":"+vals[0]+","+vals[1])
			case search.OpRange:
				out = append(out, name+":"+vals[0]+".."+vals[1], name+":"+vals[0]+"..*", name+":*.."+vals[1])
			default:
				for _, v := range vals {
					out = append(out, name+op.Symbol()+v)
				}
			}
		}
	}
	for _, c := range slices.Clone(out) {
		out = append(out, "-"+c)
	}
	return out, nil
}

// pageVariant is one way of paging a list: its order, whether it is counted, and which
// page.
type pageVariant struct {
	desc, count bool
	paging      int // 0: first page; 1: after a cursor; 2: page 2; 3: a page past bandWalkProbe
}

func (v pageVariant) String() string {
	s := [...]string{"first page", "cursor page", "page=2", fmt.Sprintf("page=%d", deepPage)}[v.paging]
	if v.desc {
		s += ", newest first"
	}
	if v.count {
		s += ", counted"
	}
	return s
}

// deepPage is a page whose matches before it are more than the own band's probe reads
// (bandWalkProbe): the bands' plans then read no probe.
const deepPage = bandWalkProbe/shop.DefaultPerPage + 2

// pageVariants are every paging, order and count.
var pageVariants = func() []pageVariant {
	var out []pageVariant
	for paging := range 4 {
		for _, desc := range []bool{false, true} {
			for _, count := range []bool{false, true} {
				out = append(out, pageVariant{desc, count, paging})
			}
		}
	}
	return out
}()

// apply sets the list's order, count and page.
func (v pageVariant) apply(desc *bool, count *bool, page *int, after **shop.Cursor, at time.Time) {
	*desc, *count, *page, *after = v.desc, v.count, 0, nil
	switch v.paging {
	case 1:
		*after = &shop.Cursor{CreatedAt: at, ID: 7}
	case 2:
		*page = 2
	case 3:
		*page = deepPage
	}
}

// planOutcomes returns every plan planPurchases can choose for f, whatever the data,
// one for each shape of statement: one for each outcome of the counts of its range
// conditions (rangeCount: none matches, at most sortLimit, more), and for a total
// comparison alone one for each number of bands beyond the own band that an edge band
// of the account gives, with the own band walked or its matches sorted (planBands,
// planSliver), or past maxBandBranches the walk of the list order; with remembered,
// also the plans from a remembered edge (bandEdges.plan).
func planOutcomes(f shop.PurchaseFilter, remembered bool) []plan {
	var out []plan
	add := func(p plan) {
		if !slices.ContainsFunc(out, func(q plan) bool {
			return q.path == p.path && len(q.bands) == len(p.bands) && q.sortOwn == p.sortOwn && q.optimistic == p.optimistic
		}) {
			out = append(out, p)
		}
	}
	switch {
	case bandable(f):
		own, gt := totalBand(f.Total), f.TotalOp == shop.TotalGt
		edges := []sql.NullInt64{{}} // no purchases
		for b := range 10*20 + 10 {  // every band of up to 20 integer digits
			edges = append(edges, sql.NullInt64{Int64: int64(b), Valid: true})
		}
		for _, e := range edges {
			bands := bandsBeyond(own, e, gt)
			if len(bands) > maxBandBranches {
				add(plan{path: pathWalkTotal})
			} else {
				add(plan{path: pathTotalBands, bands: bands})                // the own band walked
				add(plan{path: pathTotalBands, bands: bands, sortOwn: true}) // its matches sorted
			}
			if remembered {
				add(optimisticPlan(f, bandEdge{edge: e}))
			}
		}
	case needsCounts(f):
		paths := rangePaths(f)
		outcomes := []int64{0, sortLimit, sortLimit + 1}
		for i := range pow(len(outcomes), len(paths)) {
			counts := map[accessPath]int64{}
			for k, p := range paths {
				counts[p] = outcomes[i/pow(len(outcomes), k)%len(outcomes)]
				if counts[p] == 0 {
					break // planPurchases stops counting
				}
			}
			add(plan{path: choosePath(f, counts)})
		}
	default:
		add(plan{path: choosePath(f, nil)})
	}
	return out
}

func pow(b, n int) int {
	r := 1
	for range n {
		r *= b
	}
	return r
}

// shapeSet collects distinct statements, each with the origin of its first
// enumeration, and what the enumeration covered.
type shapeSet struct {
	at      time.Time
	stmts   []ShapeStatement
	seen    map[string]bool
	paths   map[accessPath]int
	fields  map[string]bool
	planned []plannedFilter
	err     error
}

// plannedFilter is a filter whose plan sends statements, and its origin.
type plannedFilter struct {
	origin string
	f      shop.PurchaseFilter
}

func newShapeSet(at time.Time) *shapeSet {
	return &shapeSet{at: at, seen: map[string]bool{}, paths: map[accessPath]int{}, fields: map[string]bool{}}
}

// add returns what keeps a built statement of the origin when its text is new:
// s.add(origin)(builder(...)).
func (s *shapeSet) add(origin string) func(query string, args []any, err error) {
	return func(query string, args []any, err error) {
		if err != nil {
			if s.err == nil {
				s.err = fmt.Errorf("%s: %w", origin, err)
			}
			return
		}
		if !s.seen[query] {
			s.seen[query] = true
			s.stmts = append(s.stmts, ShapeStatement{origin, Statement{query, args}})
		}
	}
}

// filled marks the fields of a filter that hold a condition.
func (s *shapeSet) filled(f any) {
	v := reflect.ValueOf(f)
	for i := range v.NumField() {
		if !v.Field(i).IsZero() {
			s.fields[v.Type().Name()+"."+v.Type().Field(i).Name] = true
		}
	}
}

// plan adds the statements planPurchases sends for f before its page, every one its
// rule can send whatever the data; SendStatementShapes also runs planPurchases itself
// with f, which sends those of the data at hand.
func (s *shapeSet) plan(origin string, f shop.PurchaseFilter) {
	if bandable(f) || needsCounts(f) {
		s.planned = append(s.planned, plannedFilter{origin, f})
	}
	keep := s.add(origin)
	switch {
	case bandable(f):
		keep(edgeStatement(f))
		keep(sliverStatement(f))
	case needsCounts(f):
		for _, p := range rangePaths(f) {
			keep(rangeCount(f, p))
		}
	}
}

// purchases adds the statements of every list that pages through f.
func (s *shapeSet) purchases(label string, f shop.PurchaseFilter) {
	s.filled(f)
	if len(f.Any) > 0 {
		s.union(label, f)
		return
	}
	n := perPage(f.PerPage)
	origin := func(entry string, pl plan) string { return fmt.Sprintf("%s on %v, %s", entry, pl.path, label) }
	// The API's page.
	s.plan("FindPurchaseDocuments plan, "+label, f)
	for _, pl := range planOutcomes(f, pageNeed(f) <= bandWalkProbe) {
		s.paths[pl.path]++
		s.add(origin("FindPurchaseDocuments", pl))(documentPageQuery(f, n, pl))
		if idsLead(f, pl) {
			s.add(origin("FindPurchaseDocuments head", pl))(headQuery(f, pl))
		}
	}
	// The dashboard's page and its capped count.
	s.plan("FindPurchases plan, "+label, f)
	for _, pl := range planOutcomes(f, false) {
		s.paths[pl.path]++
		s.add(origin("FindPurchases", pl))(purchaseListQuery(f, n, pl))
		if f.IncludeCount {
			s.add(origin("FindPurchases count", pl))(planSelect(f, pl.path, "COUNT(*)").sel.ToSql())
		}
		s.add(origin("CountPurchases", pl))(countUpTo(planSelect(f, pl.path, "1").sel, 10000))
	}
	// The CSV export: its first batch in one statement, then the walk of the ids.
	g := f
	g.Page, g.After, g.IncludeCount, g.PerPage = 0, nil, false, 0
	s.plan("ExportPurchases plan, "+label, g)
	// The two layouts of the file's lines differ in the line items' columns alone: they
	// take turns with the order.
	lines := shop.ExportLineItems
	if f.Desc {
		lines = shop.ExportProducts
	}
	for _, pl := range planOutcomes(g, false) {
		s.add(origin("ExportPurchases first batch", pl))(exportFirstQuery(g, pl, shop.ExportFirstBatch, lines))
		w := g
		w.After = &shop.Cursor{CreatedAt: s.at, ID: 7}
		s.add(origin("ExportPurchases walk", pl))(purchaseListQuery(w, shop.ExportBatch, pl))
	}
}

// union adds the statements of a union's lists (one plan, pathUnion, of a plan per
// branch): its counts, its page's ids (unionListQuery, the branches' ranges merged by
// UNION), its page of documents, and the export's batches. Each branch meets each of its
// own plan outcomes with the other branches on their first.
func (s *shapeSet) union(label string, f shop.PurchaseFilter) {
	n := perPage(f.PerPage)
	need := int(pageOffset(f, n)) + n + 1
	outcomes := make([][]plan, len(f.Any))
	for i, b := range f.Any {
		bf := branch(f, b, need)
		s.plan("union branch plan, "+label, bf)
		outcomes[i] = planOutcomes(bf, false)
	}
	for i := range f.Any {
		for _, bp := range outcomes[i] {
			pl := plan{path: pathUnion}
			for k := range f.Any {
				if k == i {
					pl.union = append(pl.union, bp)
				} else {
					pl.union = append(pl.union, outcomes[k][0])
				}
			}
			s.paths[bp.path]++
			s.paths[pathUnion]++
			at := fmt.Sprintf("branch %d on %v, %s", i, bp.path, label)
			for _, limit := range []int64{0, 10000} {
				s.add("union count, " + at)(countQuery(f, pl, limit))
			}
			s.add("union page, " + at)(purchaseListQuery(f, n, pl))
			s.add("union page documents, " + at)(documentPageQuery(f, n, pl))
			g := f
			g.Page, g.After, g.IncludeCount, g.PerPage = 0, nil, false, 0
			s.add("union export first batch, " + at)(exportFirstQuery(g, pl, shop.ExportFirstBatch, shop.ExportLineItems))
			g.After = &shop.Cursor{CreatedAt: s.at, ID: 7}
			s.add("union export walk, " + at)(purchaseListQuery(g, shop.ExportBatch, pl))
		}
	}
}

// shapeQuery reads a query of the language against the enumeration's clock.
func shapeQuery(kind search.Kind, q string, at time.Time) (*search.Resolved, error) {
	x, err := search.Parse(kind, q)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", q, err)
	}
	return x.Resolve(at, time.UTC)
}

// sampleNamed makes a filter's ref: and key: conditions conditions on ids, as the
// store does once it has looked them up (lookUpNamed): the first sample names two
// purchases, the second none.
func sampleNamed(f shop.PurchaseFilter) (shop.PurchaseFilter, error) {
	return namedAsIDs(f, func(c shop.Cond) ([]int64, error) {
		if c.Texts[0] == shapeSamples[search.TypeExact][1] {
			return []int64{}, nil
		}
		return []int64{5, 9}, nil
	})
}

// residual returns a clause's conditions as a filter's Where holds them.
func residual(kind search.Kind, c string, at time.Time) ([]shop.Cond, error) {
	r, err := shapeQuery(kind, c, at)
	if err != nil {
		return nil, err
	}
	cjs, err := r.DNF()
	if err != nil || len(cjs) != 1 {
		return nil, fmt.Errorf("%q is not one conjunction (%v)", c, err)
	}
	var out []shop.Cond
	for _, cond := range cjs[0] {
		out = append(out, cond.Shop())
	}
	return out, nil
}

// enumeratePurchaseShapes enumerates the statements of the purchase lists of an
// account (see the top of this file).
func enumeratePurchaseShapes(accountID int64, at time.Time) (*shapeSet, error) {
	s := newShapeSet(at)
	clauses, err := shapeClauses(search.Purchases)
	if err != nil {
		return nil, err
	}
	filter := func(q string) (shop.PurchaseFilter, error) {
		base := shop.PurchaseFilter{AccountID: accountID}
		if q == "" {
			return base, nil
		}
		r, err := shapeQuery(search.Purchases, q, at)
		if err != nil {
			return base, err
		}
		f, err := r.ApplyPurchases(base)
		if err != nil {
			return f, err
		}
		return sampleNamed(f)
	}

	// The bases: no filter, then the first clause, or pair of clauses, whose plans
	// take a path not taken yet.
	type base struct {
		q string
		f shop.PurchaseFilter
	}
	bases := []base{{"", shop.PurchaseFilter{AccountID: accountID}}}
	taken := map[accessPath]bool{pathList: true}
	consider := func(q string) error {
		f, err := filter(q)
		if err != nil {
			return err
		}
		for _, pl := range planOutcomes(f, true) {
			if !taken[pl.path] {
				taken[pl.path] = true
				bases = append(bases, base{q, f})
			}
		}
		return nil
	}
	for i, c := range clauses {
		if err := consider(c); err != nil {
			return nil, err
		}
		for _, d := range clauses[:i] {
			if err := consider(d + " " + c); err != nil {
				return nil, err
			}
		}
	}

	page := func(f shop.PurchaseFilter, v pageVariant) shop.PurchaseFilter {
		v.apply(&f.Desc, &f.IncludeCount, &f.Page, &f.After, at)
		return f
	}
	label := func(q string, v pageVariant) string { return fmt.Sprintf("q=%q, %v", q, v) }
	for bi, b := range bases {
		for _, v := range pageVariants {
			s.purchases(label(b.q, v), page(b.f, v))
			u, err := filter("(" + cmp.Or(b.q, "-id:1") + ") OR email:zz")
			if err != nil {
				return nil, err
			}
			s.purchases(label("("+cmp.Or(b.q, "-id:1")+") OR email:zz", v), page(u, v))
		}
		for ci, c := range clauses {
			v := pageVariants[(bi+ci)%len(pageVariants)]
			q := strings.TrimSpace(b.q + " " + c)
			f, err := filter(q)
			if err != nil {
				return nil, err
			}
			s.purchases(label(q, v), page(f, v))
			// The clause as a residual condition of the base.
			conds, err := residual(search.Purchases, c, at)
			if err != nil {
				return nil, err
			}
			r := b.f
			r.Where = append(slices.Clone(r.Where), conds...)
			if r, err = sampleNamed(r); err != nil {
				return nil, err
			}
			s.purchases(label(b.q+" with residual "+c, v), page(r, v))
			if bi == 0 {
				u, err := filter("(" + c + ") OR email:zz")
				if err != nil {
					return nil, err
				}
				s.purchases(label("("+c+") OR email:zz", v), page(u, v))
			}
		}
	}
	return s, s.err
}

// subscriberShape is one enumerated filter of the subscriber lists.
type subscriberShape struct {
	label string
	f     shop.SubscriberFilter
}

// subscriberShapes returns every filter of the subscriber lists the enumeration
// covers: no condition and each filter field the language does not fill (the service
// term's dates, the overview's links), each in every paging and order, and each with
// every clause of the language, as its filter field where it fits, as a residual
// condition, and in a union, in one paging and order each (every base and every clause
// meeting every variant); all on one storefront (storefrontID) and on all.
func subscriberShapes(accountID, storefrontID int64, at time.Time) ([]subscriberShape, error) {
	clauses, err := shapeClauses(search.Subscribers)
	if err != nil {
		return nil, err
	}
	type base struct {
		label string
		f     shop.SubscriberFilter
	}
	bases := []base{{"", shop.SubscriberFilter{}}}
	day := at.Add(-30 * 24 * time.Hour)
	t := reflect.TypeFor[shop.SubscriberFilter]()
	for i := range t.NumField() {
		if t.Field(i).Type == reflect.TypeFor[*time.Time]() {
			var f shop.SubscriberFilter
			reflect.ValueOf(&f).Elem().Field(i).Set(reflect.ValueOf(&day))
			bases = append(bases, base{t.Field(i).Name, f})
		}
	}
	var out []subscriberShape
	add := func(label string, f shop.SubscriberFilter, v pageVariant) {
		v.apply(&f.Desc, &f.IncludeCount, &f.Page, &f.After, at)
		for _, sf := range []int64{0, storefrontID} {
			f.AccountID, f.StorefrontID = accountID, sf
			out = append(out, subscriberShape{fmt.Sprintf("%s, storefront %d, %v", label, sf, v), f})
			// The dashboard's count stops at its cap: another statement.
			if f.IncludeCount {
				capped := f
				capped.CountCap = 10_000
				out = append(out, subscriberShape{fmt.Sprintf("%s, storefront %d, %v, count capped", label, sf, v), capped})
			}
			// A narrower way in (narrowWay) is counted up to a page's choice when the
			// list is not counted: another statement.
			if _, terms := termBounds(f); f.IncludeCount && (sf == 0 && namesBeginning(f) || terms != nil) {
				uncounted := f
				uncounted.IncludeCount = false
				out = append(out, subscriberShape{fmt.Sprintf("%s, storefront %d, %v, not counted", label, sf, v), uncounted})
			}
		}
	}
	for bi, b := range bases {
		for _, v := range pageVariants {
			add(b.label, b.f, v)
		}
		for ci, c := range clauses {
			v := pageVariants[(bi+ci)%len(pageVariants)]
			for _, q := range []string{c, "(" + c + ") OR email:zz"} {
				r, err := shapeQuery(search.Subscribers, q, at)
				if err != nil {
					return nil, err
				}
				f, err := r.ApplySubscribers(b.f)
				if err != nil {
					return nil, err
				}
				add(fmt.Sprintf("%s q=%q", b.label, q), f, v)
			}
			conds, err := residual(search.Subscribers, c, at)
			if err != nil {
				return nil, err
			}
			f := b.f
			f.Where = conds
			add(fmt.Sprintf("%s with residual %s", b.label, c), f, v)
		}
	}
	return out, nil
}

// conditionFields are the fields of a list filter that select rows, not order or page
// them.
func conditionFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		switch name := t.Field(i).Name; name {
		case "AccountID", "Where", "Any", "Desc", "PerPage", "Page", "After", "IncludeCount", "CountCap":
		default:
			out = append(out, t.Name()+"."+name)
		}
	}
	return out
}

// shapeSenders is how many connections send the enumerated statements at once.
const shapeSenders = 4

// ShapeReport is what SendStatementShapes sent: the distinct statements of the
// purchase and subscriber lists.
type ShapeReport struct {
	Purchases, Subscribers []string
}

// SendStatementShapes sends every enumerated statement of the purchase lists, each
// distinct text once, and runs the subscriber list's read path with every enumerated
// subscriber filter, sending each distinct statement it builds with the context that
// mark gives (the recording's, for request statements of that origin) and the others
// without. The account's storefront must exist.
func (db *DB) SendStatementShapes(ctx context.Context, accountID, storefrontID int64, at time.Time, mark func(context.Context, string) context.Context) (ShapeReport, error) {
	var rep ShapeReport
	s, err := enumeratePurchaseShapes(accountID, at)
	if err != nil {
		return rep, err
	}
	// A few connections at once: the statements are many, and each is short.
	work := make(chan ShapeStatement)
	errs := make(chan error, shapeSenders)
	for range shapeSenders {
		go func() {
			var first error
			for st := range work {
				if first != nil {
					continue
				}
				rows, err := db.QueryContext(mark(ctx, "enumerated "+st.Origin), st.Query, st.Args...)
				if err != nil {
					first = fmt.Errorf("%s: %w\n%s", st.Origin, err, st.Query)
					continue
				}
				rows.Close()
			}
			errs <- first
		}()
	}
	for _, st := range s.stmts {
		work <- st
	}
	close(work)
	for range shapeSenders {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	if err != nil {
		return rep, err
	}
	for _, st := range s.stmts {
		rep.Purchases = append(rep.Purchases, st.Query)
	}
	q := &markingQueryer{queryer: db.DB, mark: mark, seen: map[string]bool{}}
	for _, p := range s.planned {
		q.origin = "enumerated " + p.origin
		if _, err := planPurchases(ctx, q, p.f); err != nil {
			return rep, fmt.Errorf("%s: %w", p.origin, err)
		}
	}
	// The export's later batches read their purchases and line items by id: as one
	// range of the primary key when the ids are dense, else by the list (exportRows).
	var ids []int64
	err = eachRow(ctx, db.DB, "SELECT id FROM purchases WHERE account_id = ? ORDER BY id", []any{accountID}, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		ids = append(ids, id)
		return err
	})
	if err != nil || len(ids) < 40 {
		return rep, fmt.Errorf("the account's purchases: %d, %v; want 40 or more", len(ids), err)
	}
	var sparse []int64
	for i := 0; i < len(ids); i += 8 {
		sparse = append(sparse, ids[i])
	}
	for _, batch := range [][]int64{ids[:5], sparse} {
		for _, lines := range []shop.ExportLines{shop.ExportLineItems, shop.ExportProducts} {
			q.origin = fmt.Sprintf("enumerated ExportPurchases rows, dense %v, lines %v", dense(batch[0], batch[len(batch)-1], len(batch)), lines)
			if _, err := exportRows(ctx, q, accountID, batch, lines); err != nil {
				return rep, err
			}
		}
	}
	// The search's ref: and key: are looked up before the plan (lookUpNamed): one
	// statement each, whatever the query; what they become is a condition on ids.
	for _, by := range []shop.NamedBy{shop.NamedByReference, shop.NamedByProductKey} {
		q.origin = fmt.Sprintf("enumerated purchasesNamed, by %d", by)
		if _, err := purchasesNamed(ctx, q, accountID, by, "ch_0", maxNamed+1); err != nil {
			return rep, err
		}
	}
	for text := range q.seen {
		if !s.seen[text] {
			rep.Purchases = append(rep.Purchases, text)
		}
	}
	shapes, err := subscriberShapes(accountID, storefrontID, at)
	if err != nil {
		return rep, err
	}
	q = &markingQueryer{queryer: db.DB, mark: mark, seen: map[string]bool{}}
	for _, sh := range shapes {
		q.origin = "enumerated FindSubscribers, " + sh.label
		if _, err := db.findSubscribers(ctx, q, sh.f, 0); err != nil {
			return rep, fmt.Errorf("%s: %w", sh.label, err)
		}
	}
	// The test data's matches are few: a narrower way in is read for the page. Again
	// as if they were many, for the window of the list order, and with a window that
	// holds none, for the statements read after it.
	defer func(most int64, window uint64) { narrowMost, listWindow = most, window }(narrowMost, listWindow)
	narrowMost = -1
	for _, window := range []uint64{listWindow, 0} {
		listWindow = window
		for _, sh := range shapes {
			if _, terms := termBounds(sh.f); sh.f.StorefrontID == 0 && namesBeginning(sh.f) || terms != nil {
				q.origin = fmt.Sprintf("enumerated FindSubscribers, %s, many matches, a window of %d", sh.label, window)
				if _, err := db.findSubscribers(ctx, q, sh.f, 0); err != nil {
					return rep, fmt.Errorf("%s: %w", sh.label, err)
				}
			}
		}
	}
	for text := range q.seen {
		rep.Subscribers = append(rep.Subscribers, text)
	}
	return rep, nil
}

// markingQueryer sends each distinct statement's first time with mark's context.
type markingQueryer struct {
	queryer
	mark   func(context.Context, string) context.Context
	origin string
	seen   map[string]bool
}

func (m *markingQueryer) ctx(ctx context.Context, q string) context.Context {
	if m.seen[q] {
		return ctx
	}
	m.seen[q] = true
	return m.mark(ctx, m.origin)
}

func (m *markingQueryer) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return m.queryer.QueryContext(m.ctx(ctx, q), q, args...)
}

func (m *markingQueryer) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return m.queryer.QueryRowContext(m.ctx(ctx, q), q, args...)
}

// TestStatementShapes_EveryAccessPath checks the enumeration's reach: every access
// path the planner has is taken by some enumerated plan, and every field of the
// purchase filter holds a condition in some enumerated filter.
func TestStatementShapes_EveryAccessPath(t *testing.T) {
	s, err := enumeratePurchaseShapes(1, time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for p := range accessPath(len(pathNames)) {
		if s.paths[p] == 0 {
			t.Errorf("no enumerated filter is planned on the %v path: give the search language a clause that fills it, or shapeSamples a value that makes the planner choose it", p)
		}
	}
	for _, f := range conditionFields(reflect.TypeFor[shop.PurchaseFilter]()) {
		if !s.fields[f] {
			t.Errorf("no enumerated filter sets %s", f)
		}
	}
	t.Logf("%d statements; plans by path: %v", len(s.stmts), s.paths)
}
