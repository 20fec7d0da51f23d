package mysql_test

import (
	"regexp"
	"testing"
)

// TestAudit_NoStatementChangesARecord: the product writes audit records and reads them,
// and has no statement that updates or deletes one (docs/SECURITY.md#audit-records).
func TestAudit_NoStatementChangesARecord(t *testing.T) {
	changes := regexp.MustCompile(`(?is)^\s*(UPDATE|DELETE|REPLACE|TRUNCATE|ALTER|DROP)\b.*\baudit_records\b`)
	writes := 0
	for s, pos := range sourceStatements(t) {
		if changes.MatchString(s) {
			t.Errorf("%s changes audit records: %s", pos, s)
		}
		if regexp.MustCompile(`(?is)^\s*INSERT INTO audit_records\b`).MatchString(s) {
			writes++
		}
	}
	if writes == 0 {
		t.Fatal("found no statement that writes an audit record: the check reads the wrong source")
	}
}
