package templates

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// statusText is "404 · Not found" for error pages.
func statusText(status int) string {
	return fmt.Sprintf("%d · %s", status, http.StatusText(status))
}

// FormatTime writes an instant in the account's zone, e.g. "Mon 16 Nov 2026 14:05 EST".
func FormatTime(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2 Jan 2006 15:04 MST")
}

// FormatCount writes a whole number with thousands separators: 10,000.
func FormatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// countNoun is the noun that follows a count as FormatCount writes it: one for "1",
// else many ("0 purchases", "1 purchase", "10,000+ purchases").
func countNoun(count, one, many string) string {
	if count == "1" {
		return one
	}
	return many
}

// orderText names the order a list is in.
func orderText(oldest bool) string {
	if oldest {
		return "oldest first"
	}
	return "newest first"
}

// pageWord names the rows a paging link leads to: "Newer" rows or "Older" ones.
func pageWord(newer bool) string {
	if newer {
		return "Newer"
	}
	return "Older"
}
