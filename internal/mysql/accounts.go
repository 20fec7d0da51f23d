package mysql

import (
	"context"
	"database/sql"
	"errors"
	"strings"

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

// FindDomains returns up to limit e-mail domains of the account's purchases that start
// with prefix, from the domain rows of purchase_prefixes (db/README.md, "Domains"). It
// reads one domain a statement: the first row past the last domain found, one descent
// of the primary key, so a domain that thousands of purchases share costs what a rare
// one does. The domain is taken from the row's e-mail, whole where the prefix holds
// only its first maxDomainLen characters; an empty domain is passed over.
func (s *AccountService) FindDomains(ctx context.Context, accountID int64, prefix string, limit int) ([]string, error) {
	var out []string
	for after := ""; len(out) < limit; {
		var email string
		err := s.db.QueryRowContext(ctx, `SELECT prefix, value FROM purchase_prefixes
			WHERE account_id = ? AND field = ? AND prefix_len = 0 AND prefix LIKE ? AND prefix > ?
			ORDER BY prefix LIMIT 1`, accountID, prefixDomain, escapeLike(prefix)+"%", after).Scan(&after, &email)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return nil, translate(err)
		}
		out = append(out, email[strings.LastIndexByte(email, '@')+1:])
	}
	return out, nil
}

// CountAccounts returns how many accounts exist: zero means a database without data.
func (s *AccountService) CountAccounts(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM accounts").Scan(&n)
	return n, translate(err)
}
