package seed

import (
	"testing"
	"time"
)

// BenchmarkGeneratePurchase measures making up one purchase with its rows, without
// the database: the generator must stay well ahead of the writer.
func BenchmarkGeneratePurchase(b *testing.B) {
	now := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	accts := []*account{{id: 1, emails: emailSet{}}, {id: 2, emails: emailSet{}}}
	var sfs []*storefront
	var pid int64
	for i, layout := range []struct {
		cur     string
		dl, day int64
	}{{"USD", 5, 30}, {"EUR", 0, 0}, {"JPY", 3, 7}} {
		sf := &storefront{id: int64(i + 1), acct: accts[i/2], cur: newCurrency(layout.cur),
			dlLimit: layout.dl, dlDays: layout.day, weight: storefrontWeights[i]}
		sf.setCatalog(i, func(string) int64 { pid++; return pid })
		sfs = append(sfs, sf)
	}
	g := newGenerator(1, now, sfs, ids{}, 0, false)
	g.beginChunk(newChunk())
	for range 10000 {
		g.subscriber(g.pickSubscriberStorefront())
	}
	g.sortPaying()
	c := newChunk()
	g.beginChunk(c)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.purchase(g.at(float64(i%b.N) / float64(b.N)))
	}
	g.endChunk()
	var rows int64
	for _, n := range c.rows {
		rows += n
	}
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}
