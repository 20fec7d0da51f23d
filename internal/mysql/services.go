// The services *DB implements, checked by the compiler.
package mysql

import "storefront/internal/shop"

var (
	_ shop.PurchaseService   = (*DB)(nil)
	_ shop.PurchaseWriter    = (*DB)(nil)
	_ shop.SubscriberService = (*DB)(nil)
	_ shop.AccountService    = (*DB)(nil)
	_ shop.APIKeyService     = (*DB)(nil)
	_ shop.UserService       = (*DB)(nil)
	_ shop.AdminService      = (*DB)(nil)
)
