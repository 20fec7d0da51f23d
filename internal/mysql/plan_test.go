package mysql

import (
	"testing"
	"time"

	"storefront/internal/shop"
)

func TestChoosePath(t *testing.T) {
	yes, no := true, false
	few, many := map[accessPath]int64{}, map[accessPath]int64{}
	few[pathTotalRange], many[pathTotalRange] = 12, sortLimit+1
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
		{"product", shop.PurchaseFilter{ProductID: 9, StorefrontID: 2, Unshipped: &no}, nil, pathProduct},
		// A mark (ship=1, one status but ACT) with a product or an e-mail prefix: the
		// marks' range of the two together.
		{"product with ship", shop.PurchaseFilter{ProductID: 9, StorefrontID: 2, Unshipped: &yes}, nil, pathMarkProduct},
		{"product with a rare status", shop.PurchaseFilter{ProductID: 9, Statuses: []shop.PurchaseStatus{"RFD"}}, nil, pathMarkProduct},
		{"product with ACT has no mark", shop.PurchaseFilter{ProductID: 9, Statuses: []shop.PurchaseStatus{"ACT"}}, nil, pathProduct},
		{"product with several statuses has no mark", shop.PurchaseFilter{ProductID: 9, Statuses: []shop.PurchaseStatus{"RFD", "CAN"}}, nil, pathProduct},
		{"e-mail prefix with a status", shop.PurchaseFilter{EmailPrefix: "re", Statuses: []shop.PurchaseStatus{"HLD"}}, nil, pathMarkEmail},
		{"e-mail prefix with ship", shop.PurchaseFilter{EmailPrefix: "re", Unshipped: &yes, StorefrontID: 2}, nil, pathMarkEmail},
		{"long e-mail prefix with ship", shop.PurchaseFilter{EmailPrefix: "renée@", Unshipped: &yes}, nil, pathMarkEmail},
		{"e-mail prefix with ship=0 has no mark", shop.PurchaseFilter{EmailPrefix: "re", Unshipped: &no}, nil, pathPrefixEmail},
		{"product leads an e-mail prefix on the marks", shop.PurchaseFilter{EmailPrefix: "re", ProductID: 9, Unshipped: &yes}, nil, pathMarkProduct},
		{"product with an e-mail prefix walks the prefix", shop.PurchaseFilter{EmailPrefix: "re", ProductID: 9, Statuses: []shop.PurchaseStatus{"ACT"}}, nil, pathPrefixEmail},
		{"product with one letter of the e-mail", shop.PurchaseFilter{EmailPrefix: "r", ProductID: 9, Statuses: []shop.PurchaseStatus{"ACT"}}, nil, pathProduct},
		{"product with a domain", shop.PurchaseFilter{Domain: "acme.io", ProductID: 9}, nil, pathProduct},
		{"names have no marks", shop.PurchaseFilter{LastPrefix: "sm", Statuses: []shop.PurchaseStatus{"HLD"}}, nil, pathPrefixLast},
		{"customer leads a mark", shop.PurchaseFilter{CustomerID: 3, ProductID: 9, Unshipped: &yes}, nil, pathCustomer},
		{"a mark leads a short total range, uncounted", shop.PurchaseFilter{ProductID: 9, Unshipped: &yes, Total: "900", TotalOp: shop.TotalGt}, few, pathMarkProduct},
		{"storefront with a prefix walks the prefix", shop.PurchaseFilter{FirstPrefix: "a", StorefrontID: 4}, nil, pathPrefixFirst},
		{"status with a total comparison and more walks the status", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"HLD"}, StorefrontID: 2,
			Total: "1", TotalOp: shop.TotalGt}, many, pathStatus},
		{"one status", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"RFD"}, StorefrontID: 2}, nil, pathStatus},
		{"several statuses walk", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"RFD", "CAN"}}, nil, pathList},
		{"several statuses and a storefront", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"RFD", "CAN"}, StorefrontID: 2}, nil, pathStorefront},
		{"storefront", shop.PurchaseFilter{StorefrontID: 2}, nil, pathStorefront},
		{"unshipped", shop.PurchaseFilter{Unshipped: &yes}, nil, pathShip},
		{"short e-mail prefix has its path", shop.PurchaseFilter{EmailPrefix: "a"}, nil, pathPrefixEmail},
		{"first-name prefix", shop.PurchaseFilter{FirstPrefix: "cha"}, nil, pathPrefixFirst},
		{"last-name prefix", shop.PurchaseFilter{LastPrefix: "é"}, nil, pathPrefixLast},
		{"prefix leads a storefront", shop.PurchaseFilter{EmailPrefix: "a", StorefrontID: 2}, nil, pathPrefixEmail},
		{"prefix leads a status", shop.PurchaseFilter{LastPrefix: "s", Statuses: []shop.PurchaseStatus{"RFD"}}, nil, pathPrefixLast},
		{"product leads a prefix", shop.PurchaseFilter{LastPrefix: "s", ProductID: 9}, nil, pathProduct},
		{"the longer of two prefixes leads", shop.PurchaseFilter{FirstPrefix: "jo", LastPrefix: "s"}, nil, pathPrefixFirst},
		{"e-mail leads names of its length", shop.PurchaseFilter{EmailPrefix: "a", FirstPrefix: "b", LastPrefix: "s"}, nil, pathPrefixEmail},
		{"last name leads first name of its length", shop.PurchaseFilter{FirstPrefix: "bo", LastPrefix: "sm"}, nil, pathPrefixLast},
		{"one letter of each name reads the initials", shop.PurchaseFilter{FirstPrefix: "b", LastPrefix: "s", StorefrontID: 2}, nil, pathPrefixInitials},
		{"initials counted in characters", shop.PurchaseFilter{FirstPrefix: "é", LastPrefix: "😀"}, nil, pathPrefixInitials},
		{"a longer name leads, not the initials", shop.PurchaseFilter{FirstPrefix: "b", LastPrefix: "sm"}, nil, pathPrefixLast},
		{"long prefix walks its path", shop.PurchaseFilter{FirstPrefix: "olivi"}, nil, pathPrefixFirst},
		{"long prefix with a storefront", shop.PurchaseFilter{EmailPrefix: "zqxy", StorefrontID: 2}, nil, pathPrefixEmail},
		{"long prefix counted in characters", shop.PurchaseFilter{LastPrefix: "çéü"}, nil, pathPrefixLast},
		{"long prefix leads a product", shop.PurchaseFilter{LastPrefix: "smith", ProductID: 9}, nil, pathPrefixLast},
		{"the longest prefix leads a product", shop.PurchaseFilter{FirstPrefix: "a", LastPrefix: "sm", ProductID: 9}, nil, pathPrefixLast},
		{"one letter of each name with a product", shop.PurchaseFilter{FirstPrefix: "a", LastPrefix: "s", ProductID: 9}, nil, pathProduct},
		{"short total range beats a prefix", shop.PurchaseFilter{LastPrefix: "s", Total: "900", TotalOp: shop.TotalGt}, few, pathTotalRange},
		{"long total range walks", shop.PurchaseFilter{Total: "1", TotalOp: shop.TotalGt}, many, pathWalkTotal},
		{"total above, short", shop.PurchaseFilter{Total: "900", TotalOp: shop.TotalGt}, few, pathTotalRange},
		{"total unequal walks", shop.PurchaseFilter{Total: "900", TotalOp: shop.TotalNe}, nil, pathWalkTotal},
		{"long total range with a prefix", shop.PurchaseFilter{Total: "1", TotalOp: shop.TotalGt, LastPrefix: "smi"}, many, pathPrefixLast},
		{"id list", shop.PurchaseFilter{IDs: []int64{1, 2}, CustomerID: 4}, nil, pathIDs},
		{"domain", shop.PurchaseFilter{Domain: "acme.io"}, nil, pathPrefixDomain},
		{"domain leads a status and a storefront", shop.PurchaseFilter{Domain: "acme.io", Statuses: []shop.PurchaseStatus{"RFD"}, StorefrontID: 2}, nil, pathPrefixDomain},
		{"a prefix leads a domain", shop.PurchaseFilter{Domain: "acme.io", FirstPrefix: "b"}, nil, pathPrefixFirst},
		{"product leads a domain", shop.PurchaseFilter{Domain: "acme.io", ProductID: 9}, nil, pathProduct},
		{"exactly the total limit is sorted", shop.PurchaseFilter{Total: "1", TotalOp: shop.TotalLt}, map[accessPath]int64{pathTotalRange: sortLimit}, pathTotalRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := choosePath(tc.f, tc.counts); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			leads := tc.want == pathCustomer || tc.want == pathSubscriber || tc.want == pathTotalEq || tc.want == pathIDs ||
				tc.want == pathMarkProduct || tc.want == pathMarkEmail
			if needsCounts(tc.f) != (len(rangePaths(tc.f)) > 0 && !leads) {
				t.Errorf("needsCounts: got %v", needsCounts(tc.f))
			}
		})
	}
}
