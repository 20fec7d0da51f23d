package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"
)

// TakeTokens implements web.TokenStore: every instance of the program takes its API
// requests' tokens from one bucket per key in api_rate_buckets, so that a key's limit
// holds across instances. In one transaction, holding the bucket's row, it refills the
// key's bucket for the time since its last refill (perMinute a minute, at most burst; a
// new key starts full) and takes up to want tokens: all of them while the bucket holds
// four times as many, else a quarter of what it holds, and one when it holds between
// one and four, so that instances share the last tokens instead of one of them holding
// them all. It returns how many it took and how many the bucket has left.
//
// Instances pass their own clock; the bucket never refills backwards when clocks
// disagree a little. The row is read and written with plain statements (no user
// variables carrying the answer out of an upsert), which Vitess can run as well.
func (s *RateStore) TakeTokens(ctx context.Context, keyID int64, want, perMinute, burst int, now time.Time) (int, float64, error) {
	db := s.db
	if want < 1 || perMinute < 1 || burst < 1 {
		return 0, 0, fmt.Errorf("take tokens: want, perMinute and burst must be positive")
	}
	now = now.UTC()
	perMicro := float64(perMinute) / 60e6
	for attempt := 0; ; attempt++ {
		var (
			taken int
			left  float64
			found bool
		)
		err := db.inTx(ctx, func(tx *Tx) error {
			var tokens float64
			var refilled time.Time
			err := tx.QueryRowContext(ctx, "SELECT tokens, refilled_at FROM api_rate_buckets WHERE key_id = ? FOR UPDATE", keyID).
				Scan(&tokens, &refilled)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			found = true
			avail := math.Min(float64(burst), tokens+float64(max(0, now.Sub(refilled).Microseconds()))*perMicro)
			taken = int(math.Min(float64(want), math.Max(math.Min(1, math.Floor(avail)), math.Floor(avail/4))))
			left = avail - float64(taken)
			if now.After(refilled) {
				refilled = now
			}
			_, err = tx.ExecContext(ctx, "UPDATE api_rate_buckets SET tokens = ?, refilled_at = ? WHERE key_id = ?", left, refilled, keyID)
			return err
		})
		if err != nil {
			return 0, 0, fmt.Errorf("take tokens: %w", err)
		}
		if found {
			return taken, left, nil
		}
		// A new key: its bucket starts full, less this first take. When another instance
		// made the bucket meanwhile, take from that one.
		first := min(want, max(1, burst/4))
		res, err := db.ExecContext(ctx, "INSERT IGNORE INTO api_rate_buckets (key_id, tokens, refilled_at) VALUES (?, ?, ?)",
			keyID, float64(burst-first), now)
		if err != nil {
			return 0, 0, fmt.Errorf("take tokens: %w", translate(err))
		}
		if n, err := res.RowsAffected(); err != nil {
			return 0, 0, fmt.Errorf("take tokens: %w", translate(err))
		} else if n == 1 {
			return first, float64(burst - first), nil
		}
		if attempt > 0 {
			return 0, 0, fmt.Errorf("take tokens: the bucket of key %d neither exists nor can be made", keyID)
		}
	}
}
