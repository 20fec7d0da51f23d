package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"storefront/internal/shop"
)

// importRollups follows the purchases of an import batch through their upsert: what the
// replaced ones counted for, by the account that held them, is counted out, and what
// the batch writes is counted in.
type importRollups struct {
	before map[int64]map[int64]*purchaseFact
}

// trackImportRollups reads what the batch's existing purchases (their accounts by id)
// count for, before their rows and collections are replaced.
func trackImportRollups(ctx context.Context, tx queryer, existing map[int64]int64) (*importRollups, error) {
	r := &importRollups{before: map[int64]map[int64]*purchaseFact{}}
	byAccount := map[int64][]int64{}
	for id, account := range existing {
		byAccount[account] = append(byAccount[account], id)
	}
	for account, ids := range byAccount {
		facts, err := readPurchaseFacts(ctx, tx, account, ids)
		if err != nil {
			return nil, fmt.Errorf("rollups: %w", err)
		}
		r.before[account] = facts
	}
	return r, nil
}

// importDeltas gathers the rollup changes of an import's batches, by account, so that
// the whole import writes each rollup row once (rollupDeltas.apply) instead of once a
// batch. Nothing in the import reads the rollups before they are written: the rebuild
// of an account whose zone changes (accountZones) writes them first.
type importDeltas struct {
	deltas map[int64]*rollupDelta
	// zones holds the accounts' zones read so far; an import of accounts clears it.
	zones map[int64]*time.Location
}

// delta returns the account's gathered changes, in its zone.
func (d *importDeltas) delta(ctx context.Context, tx queryer, account int64) (*rollupDelta, error) {
	if r := d.deltas[account]; r != nil {
		return r, nil
	}
	loc, ok := d.zones[account]
	if !ok {
		var err error
		if loc, err = accountZone(ctx, tx, account); err != nil {
			return nil, err
		}
		if d.zones == nil {
			d.zones = map[int64]*time.Location{}
		}
		d.zones[account] = loc
	}
	if d.deltas == nil {
		d.deltas = map[int64]*rollupDelta{}
	}
	d.deltas[account] = newRollupDelta(account, loc)
	return d.deltas[account], nil
}

// add gathers the difference made by the batch's purchases: r's replaced purchases out,
// the batch's in (facts[i] is what purchases[i] counts for, factOf).
func (d *importDeltas) add(ctx context.Context, tx queryer, r *importRollups, purchases []*shop.Purchase, facts []*purchaseFact) error {
	for account, facts := range r.before {
		delta, err := d.delta(ctx, tx, account)
		if err != nil {
			return err
		}
		for _, f := range facts {
			delta.add(f, -1)
		}
	}
	for i, p := range purchases {
		delta, err := d.delta(ctx, tx, p.AccountID)
		if err != nil {
			return err
		}
		delta.add(facts[i], 1)
	}
	return nil
}

// apply writes the gathered changes, the accounts in order, and starts afresh; the
// zones stay known.
func (d *importDeltas) apply(ctx context.Context, tx queryer) error {
	for _, account := range slices.Sorted(maps.Keys(d.deltas)) {
		if err := d.deltas[account].apply(ctx, tx); err != nil {
			return err
		}
	}
	d.deltas = nil
	return nil
}

// forgetZones drops the zones read so far: the import is about to write accounts.
func (d *importDeltas) forgetZones() { d.zones = nil }

// accountZones follows accounts through a change of their time zones: an account whose
// zone changes has its rollups rebuilt, since its days begin at other instants.
type accountZones struct {
	before map[int64]string
}

// trackAccountZones reads the zones of the accounts before they are written.
func trackAccountZones(ctx context.Context, tx queryer, accounts []*shop.Account) (*accountZones, error) {
	z := &accountZones{before: map[int64]string{}}
	for _, a := range accounts {
		var zone string
		err := tx.QueryRowContext(ctx, "SELECT timezone FROM accounts WHERE id = ?", a.ID).Scan(&zone)
		if errors.Is(err, sql.ErrNoRows) {
			continue // a new account has no rollups yet
		}
		if err != nil {
			return nil, translate(err)
		}
		z.before[a.ID] = zone
	}
	return z, nil
}

// apply rebuilds the rollups of the accounts whose zone changed.
func (z *accountZones) apply(ctx context.Context, tx *Tx) error {
	for id, zone := range z.before {
		var now string
		if err := tx.QueryRowContext(ctx, "SELECT timezone FROM accounts WHERE id = ?", id).Scan(&now); err != nil {
			return translate(err)
		}
		if now != zone {
			if err := rebuildAccountRollups(ctx, tx, id, false); err != nil {
				return fmt.Errorf("rollups of account %d: %w", id, err)
			}
		}
	}
	return nil
}
