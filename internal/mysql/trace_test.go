package mysql

import "testing"

func TestStatementShape(t *testing.T) {
	for _, c := range []struct{ query, shape, name string }{
		{"SELECT id FROM purchases WHERE account_id = ? AND status IN ('queued', 'sending')\n\t\tORDER BY id LIMIT 20000",
			"SELECT id FROM purchases WHERE account_id = ? AND status IN (?) ORDER BY id LIMIT ?", "SELECT purchases"},
		{"INSERT INTO webhook_events (account_id, event_id) VALUES (?,?),(?,?),(?,?)",
			"INSERT INTO webhook_events (account_id, event_id) VALUES (?)", "INSERT webhook_events"},
		{"UPDATE t1 SET note = 'it''s \\' secret', n = -12.5e3 WHERE id IN (?, ?, ?)",
			"UPDATE t1 SET note = ?, n = -? WHERE id IN (?)", "UPDATE t1"},
		{"SELECT `weird name`, x2 FROM (SELECT 1) q", "SELECT `weird name`, x2 FROM (SELECT ?) q", "SELECT"},
		{"SAVEPOINT job_item", "SAVEPOINT job_item", "SAVEPOINT"},
		{"DELETE FROM sessions WHERE token = \"abc\"", "DELETE FROM sessions WHERE token = ?", "DELETE sessions"},
	} {
		if got := StatementShape(c.query); got != c.shape {
			t.Errorf("shape of %q:\n got %q\nwant %q", c.query, got, c.shape)
		}
		if got := spanName(t.Context(), "sql.conn.query", c.query); got != c.name {
			t.Errorf("span name of %q: got %q, want %q", c.query, got, c.name)
		}
	}
	long := "INSERT INTO x VALUES " + rowPlaceholders(5000, 6)
	if got := StatementShape(long); got != "INSERT INTO x VALUES (?)" {
		t.Errorf("long insert: %q", got[:min(len(got), 200)])
	}
}
