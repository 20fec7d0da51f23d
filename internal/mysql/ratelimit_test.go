package mysql_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
)

func TestDB_TakeTokens(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	t0 := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

	t.Run("NewKeyStartsFull", func(t *testing.T) {
		taken, left, err := mysql.NewRateStore(db).TakeTokens(ctx, 1, 10, 600, 60, t0)
		if err != nil {
			t.Fatal(err)
		}
		if taken != 10 || left != 50 {
			t.Fatalf("got %d taken, %v left, want 10, 50", taken, left)
		}
	})
	t.Run("SharesTheLastTokens", func(t *testing.T) {
		// 50 left: 10 at a time while there are 40 or more, then a quarter, then one.
		var got []int
		for range 16 {
			taken, _, err := mysql.NewRateStore(db).TakeTokens(ctx, 1, 10, 600, 60, t0)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, taken)
		}
		want := []int{10, 10, 7, 5, 4, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("takes: got %v, want %v", got, want)
			}
		}
	})
	t.Run("Refills", func(t *testing.T) {
		// 600 a minute is 10 a second: after 2 s there are 20, and never more than 60.
		taken, left, err := mysql.NewRateStore(db).TakeTokens(ctx, 1, 5, 600, 60, t0.Add(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if taken != 5 || left < 14.9 || left > 15.1 {
			t.Fatalf("got %d taken, %v left, want 5, 15", taken, left)
		}
		_, left, err = mysql.NewRateStore(db).TakeTokens(ctx, 1, 1, 600, 60, t0.Add(time.Hour))
		if err != nil || left != 59 {
			t.Fatalf("after an hour: got %v left (%v), want 59", left, err)
		}
	})
	t.Run("ClockBehind", func(t *testing.T) {
		// An instance whose clock is behind neither refills nor rewinds the bucket.
		_, before, _ := mysql.NewRateStore(db).TakeTokens(ctx, 1, 1, 600, 60, t0.Add(time.Hour))
		_, after, err := mysql.NewRateStore(db).TakeTokens(ctx, 1, 1, 600, 60, t0)
		if err != nil || after != before-1 {
			t.Fatalf("got %v left after %v (%v), want one fewer", after, before, err)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		// 200 takers at one instant share a new key's 60 tokens: never more.
		var mu sync.Mutex
		total := 0
		var wg sync.WaitGroup
		for range 200 {
			wg.Go(func() {
				taken, _, err := mysql.NewRateStore(db).TakeTokens(ctx, 2, 3, 60, 60, t0)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				total += taken
				mu.Unlock()
			})
		}
		wg.Wait()
		if total != 60 {
			t.Fatalf("got %d tokens taken, want 60", total)
		}
	})
}
