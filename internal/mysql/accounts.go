package mysql

import (
	"context"
	"database/sql"

	"storefront/internal/shop"
)

// FindAccountByID returns an account, or ENotFound.
func (s *AccountService) FindAccountByID(ctx context.Context, id int64) (*shop.Account, error) {
	return scanOne(s.db.QueryRowContext(ctx, "SELECT id, name, api_username, timezone, require_two_factor FROM accounts WHERE id = ?", id),
		shop.Errorf(shop.ENotFound, "Account %d was not found.", id),
		func(a *shop.Account) []any {
			return []any{&a.ID, &a.Name, &a.APIUsername, &a.Timezone, &a.RequireTwoFactor}
		})
}

// FindStorefronts returns the account's storefronts ordered by id.
func (s *AccountService) FindStorefronts(ctx context.Context, accountID int64) ([]*shop.Storefront, error) {
	return collectRows(ctx, s.db.DB, "SELECT id, account_id, name, currency, download_limit, download_days, past_due_grace_days FROM storefronts WHERE account_id = ? ORDER BY id",
		[]any{accountID}, func(rows *sql.Rows) (*shop.Storefront, error) {
			var s shop.Storefront
			return &s, rows.Scan(&s.ID, &s.AccountID, &s.Name, &s.Currency, &s.DownloadLimit, &s.DownloadDays, &s.PastDueGraceDays)
		})
}

// CountAccounts returns how many accounts exist: zero means a database without data.
func (s *AccountService) CountAccounts(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM accounts").Scan(&n)
	return n, translate(err)
}
