package mysql

import (
	"context"
	"fmt"
	"time"
)

// TakeTokens implements web.TokenStore: every instance of the program takes its API
// requests' tokens from one bucket per key in api_rate_buckets, so that a key's limit
// holds across instances. In one statement it refills the key's bucket for the time
// since its last refill (perMinute a minute, at most burst; a new key starts full) and
// takes up to want tokens: all of them while the bucket holds four times as many, else
// a quarter of what it holds, and one when it holds between one and four, so that
// instances share the last tokens instead of one of them holding them all. It
// returns how many it took and how many the bucket has left.
//
// Instances pass their own clock; the bucket never refills backwards when clocks
// disagree a little.
func (db *DB) TakeTokens(ctx context.Context, keyID int64, want, perMinute, burst int, now time.Time) (int, float64, error) {
	if want < 1 || perMinute < 1 || burst < 1 {
		return 0, 0, fmt.Errorf("take tokens: want, perMinute and burst must be positive")
	}
	now = now.UTC()
	perMicro := float64(perMinute) / 60e6
	// The bucket's content now, written out three times: MariaDB evaluates an
	// assignment's right-hand side against the row as it was.
	const avail = "LEAST(?, tokens + GREATEST(0, TIMESTAMPDIFF(MICROSECOND, refilled_at, ?)) * ?)"
	first := min(want, max(1, burst/4))
	// User variables carry the answer to the SELECT that follows on the same
	// connection: MariaDB has no UPDATE ... RETURNING.
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("take tokens: %w", translate(err))
	}
	defer conn.Close()
	_, err = conn.ExecContext(ctx, `INSERT INTO api_rate_buckets (key_id, tokens, refilled_at)
		VALUES (?, (@sf_left := ? - (@sf_taken := ?)), ?)
		ON DUPLICATE KEY UPDATE
		  tokens = (@sf_left := `+avail+` - (@sf_taken := LEAST(?, GREATEST(LEAST(1, FLOOR(`+avail+`)), FLOOR(`+avail+` / 4))))),
		  refilled_at = GREATEST(refilled_at, ?)`,
		keyID, burst, first, now,
		burst, now, perMicro,
		want, burst, now, perMicro, burst, now, perMicro,
		now)
	if err != nil {
		return 0, 0, fmt.Errorf("take tokens: %w", translate(err))
	}
	var taken, left float64
	if err := conn.QueryRowContext(ctx, "SELECT @sf_taken, @sf_left").Scan(&taken, &left); err != nil {
		return 0, 0, fmt.Errorf("take tokens: %w", translate(err))
	}
	return int(taken), left, nil
}
