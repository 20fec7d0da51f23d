package mysql

import (
	"testing"
	"time"

	"storefront/internal/shop"
)

func TestChoosePath(t *testing.T) {
	yes := true
	few, many := map[accessPath]int64{}, map[accessPath]int64{}
	for _, p := range []accessPath{pathEmail, pathFirstName, pathLastName, pathTotalRange} {
		few[p], many[p] = 12, sortLimit+1
	}
	for _, tc := range []struct {
		name   string
		f      shop.PurchaseFilter
		counts map[accessPath]int64
		want   accessPath
	}{
		{"no filter", shop.PurchaseFilter{}, nil, pathList},
		{"date range alone walks the list order", shop.PurchaseFilter{CreatedFrom: &time.Time{}}, nil, pathList},
		{"customer leads", shop.PurchaseFilter{CustomerID: 3, ProductID: 9, EmailPrefix: "a"}, nil, pathCustomer},
		{"subscriber leads", shop.PurchaseFilter{SubscriberID: 3, StorefrontID: 2}, nil, pathSubscriber},
		{"exact total leads", shop.PurchaseFilter{Total: "9.99", StorefrontID: 2}, nil, pathTotalEq},
		{"exact total, explicit op", shop.PurchaseFilter{Total: "9.99", TotalOp: shop.TotalEq}, nil, pathTotalEq},
		{"product", shop.PurchaseFilter{ProductID: 9, StorefrontID: 2, Unshipped: &yes}, nil, pathProduct},
		{"one status", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"RFD"}, StorefrontID: 2}, nil, pathStatus},
		{"several statuses walk", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"RFD", "CAN"}}, nil, pathList},
		{"several statuses and a storefront", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"RFD", "CAN"}, StorefrontID: 2}, nil, pathStorefront},
		{"storefront", shop.PurchaseFilter{StorefrontID: 2}, nil, pathStorefront},
		{"unshipped", shop.PurchaseFilter{Unshipped: &yes}, nil, pathShip},
		{"short e-mail range is sorted", shop.PurchaseFilter{EmailPrefix: "zq", StorefrontID: 2}, few, pathEmail},
		{"long e-mail range walks", shop.PurchaseFilter{EmailPrefix: "a"}, many, pathWalkEmail},
		{"long e-mail range with a storefront", shop.PurchaseFilter{EmailPrefix: "a", StorefrontID: 2}, many, pathStorefront},
		{"short range beats product", shop.PurchaseFilter{LastPrefix: "zz", ProductID: 9}, few, pathLastName},
		{"long range leaves product", shop.PurchaseFilter{LastPrefix: "s", ProductID: 9}, many, pathProduct},
		{"shortest of two ranges", shop.PurchaseFilter{FirstPrefix: "j", LastPrefix: "zz"},
			map[accessPath]int64{pathFirstName: 3000, pathLastName: 40}, pathLastName},
		{"two long ranges walk", shop.PurchaseFilter{FirstPrefix: "j", LastPrefix: "s"}, many, pathWalkNames},
		{"long e-mail and name ranges walk by e-mail", shop.PurchaseFilter{EmailPrefix: "a", LastPrefix: "s"}, many, pathWalkEmail},
		{"long total range walks", shop.PurchaseFilter{Total: "1", TotalOp: shop.TotalGt}, many, pathWalkNames},
		{"total above, short", shop.PurchaseFilter{Total: "900", TotalOp: shop.TotalGt}, few, pathTotalRange},
		{"total unequal walks", shop.PurchaseFilter{Total: "900", TotalOp: shop.TotalNe}, nil, pathWalkNames},
		{"id list", shop.PurchaseFilter{IDs: []int64{1, 2}, CustomerID: 4}, nil, pathIDs},
		{"exactly the limit is sorted", shop.PurchaseFilter{EmailPrefix: "a"}, map[accessPath]int64{pathEmail: sortLimit}, pathEmail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := choosePath(tc.f, tc.counts); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if needsCounts(tc.f) != (len(rangePaths(tc.f)) > 0 && tc.want != pathCustomer && tc.want != pathSubscriber && tc.want != pathTotalEq && tc.want != pathIDs) {
				t.Errorf("needsCounts: got %v", needsCounts(tc.f))
			}
		})
	}
}
