package shop

import (
	"bytes"
	"database/sql/driver"
	"fmt"
	"strconv"
	"time"
)

// Time is an instant written as UNIX seconds in JSON
// (docs/API.md#money-numbers-and-times). A field that may be absent is a *Time, and nil
// is written as null.
type Time struct {
	time.Time
}

// Timestamps are when a record was created and last updated. The API's records embed
// them where they show created_at and updated_at.
type Timestamps struct {
	CreatedAt Time `json:"created_at"`
	UpdatedAt Time `json:"updated_at"`
}

// Unix returns a Time for the given UNIX seconds.
func Unix(sec int64) Time { return Time{time.Unix(sec, 0).UTC()} }

// NewTime returns a Time for t, truncated to the second and in UTC.
func NewTime(t time.Time) Time { return Time{t.Truncate(time.Second).UTC()} }

// MarshalJSON writes the UNIX seconds.
func (t Time) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, t.Unix(), 10), nil
}

// UnmarshalJSON reads an integer number of UNIX seconds. A fraction, a string or an
// exponent is refused: a timestamp is an integer.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return fmt.Errorf("must be a UNIX timestamp, not null")
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("must be an integer UNIX timestamp")
	}
	// DATETIME holds years 1000..9999; keep well inside it.
	if n < -30610224000 || n > 253402300799 {
		return fmt.Errorf("UNIX timestamp %d is out of range", n)
	}
	*t = Unix(n)
	return nil
}

// Scan reads a DATETIME (the driver hands a time.Time with parseTime=true).
func (t *Time) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*t = NewTime(v)
		return nil
	case nil:
		return fmt.Errorf("shop.Time: NULL into a non-null time")
	}
	return fmt.Errorf("shop.Time: cannot scan %T", src)
}

// Value writes the instant as a UTC DATETIME.
func (t Time) Value() (driver.Value, error) { return t.Time.UTC(), nil }
