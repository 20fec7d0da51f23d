package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"storefront/internal/shop"
)

// FindSavedViews implements shop.SavedViewService.
func (s *SavedViewService) FindSavedViews(ctx context.Context, accountID, userID int64) ([]shop.SavedView, error) {
	return collectRows(ctx, s.db.DB, `SELECT id, user_id, name, query FROM saved_views
		WHERE account_id = ? AND (user_id IS NULL OR user_id = ?) ORDER BY user_id IS NOT NULL, position, id`,
		[]any{accountID, userID}, func(rows *sql.Rows) (shop.SavedView, error) {
			v := shop.SavedView{AccountID: accountID}
			err := rows.Scan(&v.ID, &v.UserID, &v.Name, &v.Query)
			return v, err
		})
}

// CreateSavedView implements shop.SavedViewService.
func (s *SavedViewService) CreateSavedView(ctx context.Context, v shop.SavedView, owner bool) (*shop.SavedView, error) {
	db := s.db
	name, err := shop.CleanViewName(v.Name)
	if err != nil {
		return nil, err
	}
	if v.UserID == nil && !owner {
		return nil, shop.Errorf(shop.EForbidden, "Only the account's owners can save views for everyone.")
	}
	v.Name = name
	err = db.inTx(ctx, func(tx *Tx) error {
		// The account's row of accounts serialises the ids and positions it hands out.
		if _, err := tx.ExecContext(ctx, "SELECT id FROM accounts WHERE id = ? FOR UPDATE", v.AccountID); err != nil {
			return err
		}
		var next int64
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) + 1 FROM saved_views WHERE account_id = ?", v.AccountID).Scan(&next); err != nil {
			return err
		}
		var pos int
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(position), 0) + 1 FROM saved_views WHERE account_id = ? AND user_id <=> ?",
			v.AccountID, v.UserID).Scan(&pos); err != nil {
			return err
		}
		v.ID = next
		now := db.nowSecond()
		if _, err := tx.ExecContext(ctx, "INSERT INTO saved_views (account_id, id, user_id, name, query, position, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
			v.AccountID, v.ID, v.UserID, v.Name, v.Query, pos, now); err != nil {
			return err
		}
		return recordAudit(ctx, tx, now, v.AccountID, shop.AuditViewSaved, viewAuditDetails(v.ID, v.Name, v.UserID == nil, v.Query))
	})
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// lockView finds a view the user may change, locked for the change.
func lockView(ctx context.Context, tx *Tx, accountID, userID, id int64, owner bool) (*int64, int, error) {
	var (
		user *int64
		pos  int
	)
	err := tx.QueryRowContext(ctx, "SELECT user_id, position FROM saved_views WHERE account_id = ? AND id = ? AND (user_id IS NULL OR user_id = ?) FOR UPDATE",
		accountID, id, userID).Scan(&user, &pos)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, shop.Errorf(shop.ENotFound, "There is no such saved view.")
	}
	if err != nil {
		return nil, 0, translate(err)
	}
	if user == nil && !owner {
		return nil, 0, shop.Errorf(shop.EForbidden, "Only the account's owners can change the views saved for everyone.")
	}
	return user, pos, nil
}

// RenameSavedView implements shop.SavedViewService.
func (s *SavedViewService) RenameSavedView(ctx context.Context, accountID, userID, id int64, owner bool, name string) error {
	name, err := shop.CleanViewName(name)
	if err != nil {
		return err
	}
	return s.db.inTx(ctx, func(tx *Tx) error {
		if _, _, err := lockView(ctx, tx, accountID, userID, id, owner); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE saved_views SET name = ? WHERE account_id = ? AND id = ?", name, accountID, id)
		return err
	})
}

// MoveSavedView implements shop.SavedViewService.
func (s *SavedViewService) MoveSavedView(ctx context.Context, accountID, userID, id int64, owner bool, by int) error {
	if by != -1 && by != 1 {
		return shop.ParamErrorf(shop.EInvalid, "by", "A view moves one place earlier or later.")
	}
	return s.db.inTx(ctx, func(tx *Tx) error {
		user, pos, err := lockView(ctx, tx, accountID, userID, id, owner)
		if err != nil {
			return err
		}
		// The neighbour in the direction of the move swaps places with it.
		q := "SELECT id, position FROM saved_views WHERE account_id = ? AND user_id <=> ? AND (position, id) > (?, ?) ORDER BY position, id LIMIT 1 FOR UPDATE"
		if by < 0 {
			q = "SELECT id, position FROM saved_views WHERE account_id = ? AND user_id <=> ? AND (position, id) < (?, ?) ORDER BY position DESC, id DESC LIMIT 1 FOR UPDATE"
		}
		var otherID int64
		var otherPos int
		err = tx.QueryRowContext(ctx, q, accountID, user, pos, id).Scan(&otherID, &otherPos)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // already first or last
		}
		if err != nil {
			return err
		}
		if otherPos == pos {
			otherPos = pos + by
		}
		if _, err := tx.ExecContext(ctx, "UPDATE saved_views SET position = ? WHERE account_id = ? AND id = ?", otherPos, accountID, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE saved_views SET position = ? WHERE account_id = ? AND id = ?", pos, accountID, otherID)
		return err
	})
}

// DeleteSavedView implements shop.SavedViewService.
func (s *SavedViewService) DeleteSavedView(ctx context.Context, accountID, userID, id int64, owner bool) error {
	return s.db.inTx(ctx, func(tx *Tx) error {
		user, _, err := lockView(ctx, tx, accountID, userID, id, owner)
		if err != nil {
			return err
		}
		var name, query string
		if err := tx.QueryRowContext(ctx, "SELECT name, query FROM saved_views WHERE account_id = ? AND id = ?", accountID, id).Scan(&name, &query); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM saved_views WHERE account_id = ? AND id = ?", accountID, id); err != nil {
			return err
		}
		return recordAudit(ctx, tx, s.db.Now(), accountID, shop.AuditViewRemoved, viewAuditDetails(id, name, user == nil, query))
	})
}

// viewAuditDetails describes a saved view for its audit record.
func viewAuditDetails(id int64, name string, everyone bool, query string) string {
	whose := "own"
	if everyone {
		whose = "for everyone"
	}
	return fmt.Sprintf("view %d %q (%s): %s", id, name, whose, query)
}
