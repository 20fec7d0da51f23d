package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/go-sql-driver/mysql"

	"storefront/internal/shop"
)

// TestTranslate checks which driver errors mean "the database cannot be reached" (an
// API answer of 503) and which stay what they are (a 500 or a domain answer).
func TestTranslate(t *testing.T) {
	unavailable := []error{
		driver.ErrBadConn,
		fmt.Errorf("commit: %w", driver.ErrBadConn),
		mysql.ErrInvalidConn,
		sql.ErrConnDone,
		io.ErrUnexpectedEOF,
		&mysql.MySQLError{Number: 1053, Message: "Server shutdown in progress"},
		&mysql.MySQLError{Number: 1927, Message: "Connection was killed"},
		&mysql.MySQLError{Number: 1040, Message: "Too many connections"},
	}
	for _, err := range unavailable {
		got := translate(err)
		if shop.ErrorCode(got) != shop.EUnavailable {
			t.Errorf("translate(%v): code %q, want %q", err, shop.ErrorCode(got), shop.EUnavailable)
		}
		if !errors.Is(got, err) {
			t.Errorf("translate(%v) = %v: the original is not kept for the log", err, got)
		}
		if again := translate(got); again.Error() != got.Error() {
			t.Errorf("translate twice: %q, once: %q", again, got)
		}
	}
	kept := []error{
		&mysql.MySQLError{Number: 1062, Message: "Duplicate entry"},
		context.Canceled,
		context.DeadlineExceeded,
		errors.New("something else"),
	}
	for _, err := range kept {
		if got := translate(err); got != err {
			t.Errorf("translate(%v) = %v, want it unchanged", err, got)
		}
	}
	if translate(nil) != nil {
		t.Error("translate(nil) is not nil")
	}
}
