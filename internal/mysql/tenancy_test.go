package mysql_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/seed"
)

// tenantTables hold data of one account (docs/API.md#accounts-and-tenancy): the sharding
// key of docs/SCALING.md is the account.
var tenantTables = map[string]bool{
	"accounts": true, "storefronts": true, "products": true, "customers": true, "subscribers": true,
	"subscriptions": true, "purchases": true, "line_items": true, "product_keys": true, "coupons": true,
	"custom_fields": true, "transactions": true, "api_keys": true, "users": true, "user_sessions": true,
	"purchase_activity": true, "subscriber_activity": true, "email_outbox": true, "idempotency_keys": true,
	"read_fences": true, "api_rate_buckets": true, "purchase_products": true, "purchase_documents": true,
	"webhook_endpoints": true, "webhook_events": true, "webhook_deliveries": true, "webhook_attempts": true,
	"purchase_prefixes": true, "purchase_pairs": true,
	"purchase_rollups": true, "purchase_rollups_monthly": true, "purchase_rollups_weekly": true, "product_rollups": true, "product_rollups_monthly": true, "subscriber_terms": true, "subscriber_rollups": true, "customer_rollups": true,
	"saved_views": true, "jobs": true, "job_items": true, "notes": true, "account_activity": true,
	"user_passkeys": true,
}

// unscoped are the statements on tenant tables that carry neither the account nor the
// storefront, each with the reason it is right and what it needs under sharding
// (docs/SCALING.md, "Statements to change"). A statement not listed here must carry
// account_id or storefront_id: dropping that condition from one fails this test.
var unscoped = map[string]string{
	// Keyed by a row the same transaction has just read with the account's condition.
	"SELECT name, download_limit, download_days FROM storefronts WHERE id = ?":                                                                                 "storefront of a purchase read with account_id (reactivate)",
	"SELECT email FROM customers WHERE id = ?":                                                                                                                 "customer of a purchase read with account_id (reactivate)",
	"UPDATE purchases SET status = 'ACT', updated_at = ? WHERE id = ?":                                                                                         "purchase locked with account_id (reactivate)",
	"UPDATE line_items SET download_count = 0, download_limit = ?, expires_at = ? WHERE purchase_id = ?":                                                       "children of a purchase locked with account_id",
	"SELECT li.id, li.quantity, (SELECT COUNT(*) FROM product_keys k WHERE k.line_item_id = li.id) FROM line_items li WHERE li.purchase_id = ? ORDER BY li.id": "children of a purchase locked with account_id",
	"SELECT COALESCE(MAX(position), -1) + 1 FROM product_keys WHERE line_item_id = ?":                                                                          "children of a purchase locked with account_id",
	"UPDATE line_items SET has_all_keys = TRUE WHERE purchase_id = ?":                                                                                          "children of a purchase locked with account_id",
	// Nested collections of a page of purchases read with account_id.
	"SELECT id, purchase_id, product_id, price, quantity, subtotal, tax, discount, total, product_name, download_limit, download_count, expires_at, has_all_keys FROM line_items WHERE purchase_id IN (?) ORDER BY purchase_id, id": "collection of a page read with account_id",
	"SELECT line_item_id, key_value FROM product_keys WHERE purchase_id IN (?) ORDER BY line_item_id, position":                                                                                                                     "collection of a page read with account_id",
	"SELECT purchase_id, name, code, discount_amount, discount_type FROM coupons WHERE purchase_id IN (?) ORDER BY purchase_id, position":                                                                                           "collection of a page read with account_id",
	"SELECT purchase_id, label, response FROM custom_fields WHERE purchase_id IN (?) ORDER BY purchase_id, position":                                                                                                                "collection of a page read with account_id",
	"SELECT id, purchase_id, action, amount, currency, gateway, is_success, reference, message, created_at, updated_at FROM transactions WHERE purchase_id IN (?) ORDER BY purchase_id, id":                                         "collection of a page read with account_id",
	// Before the account is known: the credential is the key.
	"SELECT k.id, k.account_id, k.name, k.scope, a.api_username, a.timezone FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ? AND k.revoked_at IS NULL": "API key by its secret's hash",
	"SELECT id, account_id, email, role, created_at, password_hash FROM users WHERE email = ?":                                                                                    "sign-in by e-mail (users.email is unique across accounts)",
	"SELECT u.id, u.account_id, u.email, u.role, u.created_at, s.last_seen_at FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND s.expires_at > ?":  "session by its token's hash",
	"UPDATE user_sessions SET last_seen_at = ?, expires_at = ? WHERE token_hash = ?":                                                                                              "session by its token's hash",
	"DELETE FROM user_sessions WHERE token_hash = ?":            "session by its token's hash",
	"DELETE FROM user_sessions WHERE expires_at < ? LIMIT 1000": "housekeeping across accounts",
	// Background jobs across accounts: each shard runs its own.
	"SELECT id, account_id, purchase_id, kind, facts, to_address, subject, body, attempts, status, traceparent FROM email_outbox WHERE status IN (?, ?) AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED": "mail sender, per shard",
	"SELECT status, COUNT(*) FROM jobs WHERE status IN (?, ?) GROUP BY status":                                                                            "metrics scrape, every shard's jobs",
	"UPDATE email_outbox SET status = ?, attempts = attempts + 1, next_attempt_at = ? WHERE id IN (":                                                      "mail sender, rows it claimed",
	"UPDATE email_outbox SET status = ?, last_error = ? WHERE id IN (":                                                                                    "mail sender, rows it claimed",
	"UPDATE email_outbox SET status = ?, subject = ?, sent_at = ?, last_error = NULL WHERE id = ? AND status <> ?":                                        "mail sender, a row it claimed",
	"UPDATE email_outbox SET status = ?, next_attempt_at = ?, last_error = ?, server_unreachable = ? WHERE id = ? AND status = ? AND next_attempt_at = ?": "mail sender, a row it claimed",
	"UPDATE email_outbox SET status = ?, last_error = ? WHERE id = ? AND status = ? AND next_attempt_at = ?":                                              "mail sender, a row it claimed",
	"SELECT id FROM email_outbox WHERE status = ? AND next_attempt_at > ? AND server_unreachable ORDER BY id LIMIT 1000":                                  "mail sender, every shard's queue",
	"UPDATE email_outbox SET next_attempt_at = ? WHERE id IN (":                                                                                           "mail sender, rows it read (hurried) or claimed (lease renewed)",
	"UPDATE email_outbox SET status = ?, next_attempt_at = ?, attempts = GREATEST(attempts - 1, 0) WHERE id = ? AND status = ? AND next_attempt_at = ?":   "mail sender, a row it claimed",
	"SELECT id FROM subscriptions WHERE id IN (?":                                                                                                         "PAST_DUE sweeper, rows it selected",
	// Migrating down through 00100: every shard's outbox, once.
	"UPDATE email_outbox SET last_error = IF(status IN ('queued', 'sending'), 'not sent: queued without its text, which this version cannot write', last_error), status = IF(status IN ('queued', 'sending'), 'failed', status), subject = COALESCE(subject, ''), body = COALESCE(body, '') WHERE subject IS NULL OR body IS NULL": "migration 00100 down, every shard's outbox",
	"SELECT account_id, id, endpoint_id, event_id, attempts, give_up_at FROM webhook_deliveries WHERE status IN (?, ?) AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED":                                                                                                                       "webhook deliverer, per shard",
	"SELECT DISTINCT account_id FROM webhook_endpoints WHERE enabled": "import: which of the accounts it writes to take webhook events, per shard",
	"SELECT id, account_id FROM storefronts WHERE id IN %s":           "import: the accounts of the storefronts it writes subscribers to",
	"SELECT account_id FROM webhook_endpoints WHERE id = ?":           "storefront webhook delete ID: the operator names the endpoint alone",
	// Work that visits every account, then works within each (rollups rebuild, the job runner).
	"SELECT id FROM accounts ORDER BY id": "every account in turn; per shard under sharding",
	// Which accounts hold the subscribers an import writes, found by id as the import's
	// references are, so that their service terms are kept in those accounts.
	"SELECT sb.id, sf.account_id FROM subscribers sb JOIN storefronts sf ON sf.id = sb.storefront_id WHERE sb.id IN": "import: accounts of the imported subscribers",
	"SELECT subscriber_id FROM subscriptions WHERE id IN":                                                            "import: subscribers whose subscription ids the import takes over",
	// Operators' commands across accounts (storefront seed/import, the overview).
	"SELECT COUNT(*) FROM accounts": "demo data check at start",
	"SELECT s.id, s.account_id, s.name, s.currency, s.download_limit, s.download_days, s.past_due_grace_days, (SELECT COUNT(*) FROM purchases p WHERE p.storefront_id = s.id), (SELECT COUNT(*) FROM subscribers sb WHERE sb.storefront_id = s.id) FROM storefronts s ORDER BY s.id": "operator overview; scatter under sharding",
	// Operators' repair of what is derived from purchases (RebuildDerived), across accounts.
	"DELETE FROM purchase_products": "repair across accounts, per shard",
	"INSERT IGNORE INTO purchase_products (account_id, product_id, created_at, purchase_id) SELECT p.account_id, li.product_id, p.created_at, p.id FROM purchases p JOIN line_items li ON li.purchase_id = p.id": "repair across accounts, per shard",
	"DELETE FROM purchase_documents": "repair across accounts, per shard",
	"DELETE FROM purchase_prefixes":  "repair across accounts, per shard",
	"DELETE FROM purchase_pairs":     "repair across accounts, per shard",
	// Migrations 00103 and 00131 undone: the initials' or the domains' rows of every
	// account, per shard.
	"DELETE FROM purchase_prefixes WHERE field = ?": "migration across accounts, per shard",
	// Migration 00033's backfill of the prefix rows walks every purchase; each batch is
	// then written per account.
	"SELECT account_id, id FROM purchases WHERE id > ? ORDER BY id LIMIT 20000": "backfill across accounts, per shard",
	// Shared rate limit: keyed by the API key, whose account is known.
	"SELECT tokens, refilled_at FROM api_rate_buckets WHERE key_id = ? FOR UPDATE":       "bucket of the authenticated key",
	"UPDATE api_rate_buckets SET tokens = ?, refilled_at = ? WHERE key_id = ?":           "bucket of the authenticated key",
	"INSERT IGNORE INTO api_rate_buckets (key_id, tokens, refilled_at) VALUES (?, ?, ?)": "bucket of the authenticated key",
}

// unscopedFiles hold operators' commands that work across accounts by design.
var unscopedFiles = map[string]string{
	"import.go": "storefront import upserts records of any account by id; sharded, it runs against each shard with that shard's accounts (docs/SCALING.md)",
	// The import's writes, split from import.go: the same command.
	"import_write.go": "storefront import upserts records of any account by id; sharded, it runs against each shard with that shard's accounts (docs/SCALING.md)",
}

var (
	sqlStart   = regexp.MustCompile(`(?is)^\s*(SELECT|UPDATE|DELETE|INSERT)\b`)
	tableRef   = regexp.MustCompile(`(?i)\b(?:FROM|JOIN|UPDATE|INTO)\s+([a-z_]+)`)
	scopedCond = regexp.MustCompile(`(?i)\b(?:\w+\.)?(?:account_id|storefront_id)\s*(?:=|IN\s*\()`)
	accountPK  = regexp.MustCompile(`(?i)\b(?:FROM|UPDATE) accounts\b.*\bWHERE\s+(?:\w+\.)?id\s*=`)
	insertCols = regexp.MustCompile(`(?is)^\s*INSERT\s+INTO\s+([a-z_]+)\s*\(([^)]*)`)
	spaces     = regexp.MustCompile(`\s+`)
)

// parentKeys route an inserted row to its account: the account or storefront itself,
// or the parent row that carries it.
var parentKeys = []string{"account_id", "storefront_id", "purchase_id", "subscriber_id", "line_item_id", "user_id", "key_id"}

// tenancyProblem says what is wrong with a statement, or "" when nothing is.
func tenancyProblem(stmt string) string {
	norm := strings.TrimSpace(spaces.ReplaceAllString(stmt, " "))
	norm = strings.ReplaceAll(strings.ReplaceAll(norm, "( ", "("), " )", ")")
	tenant := false
	for _, m := range tableRef.FindAllStringSubmatch(norm, -1) {
		tenant = tenant || tenantTables[strings.ToLower(m[1])]
	}
	if !tenant {
		return ""
	}
	if _, ok := unscoped[norm]; ok {
		return ""
	}
	if m := insertCols.FindStringSubmatch(norm); m != nil {
		for _, col := range strings.Split(m[2], ",") {
			for _, k := range parentKeys {
				if strings.TrimSpace(col) == k {
					return ""
				}
			}
		}
		return "inserts into " + m[1] + " without the account, storefront or parent row"
	}
	if scopedCond.MatchString(norm) || accountPK.MatchString(norm) {
		return ""
	}
	return "reads or changes tenant rows without an account_id or storefront_id condition"
}

// sourceStatements returns the SQL written as string literals in the package's code.
func sourceStatements(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if _, ok := unscopedFiles[name]; ok || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && sqlStart.MatchString(s) {
				out[s] = fset.Position(lit.Pos()).String()
			}
			return true
		})
	}
	return out
}

func TestTenancy_EveryQueryCarriesTheAccount(t *testing.T) {
	t.Run("Rule", func(t *testing.T) {
		for stmt, bad := range map[string]bool{
			"SELECT id FROM purchases WHERE account_id = ? AND id = ?":                                                         false,
			"SELECT id FROM purchases WHERE id = ?":                                                                            true,
			"SELECT 1 FROM storefronts WHERE id = ? AND account_id = ?":                                                        false,
			"SELECT a.id FROM subscriber_activity a JOIN subscribers sb ON sb.id = a.subscriber_id WHERE sb.storefront_id = ?": false,
			"SELECT id FROM accounts WHERE id = ?":                                                                             false,
			"INSERT INTO purchase_activity (purchase_id, actor) VALUES (?, ?)":                                                 false,
			"INSERT INTO purchases (id, created_at) VALUES (?, ?)":                                                             true,
			"DELETE FROM idempotency_keys WHERE created_at <= ?":                                                               true,
			"SELECT @@gtid_binlog_pos":                                                                                         false,
		} {
			if got := tenancyProblem(stmt) != ""; got != bad {
				t.Errorf("%s: flagged %v, want %v", stmt, got, bad)
			}
		}
	})
	t.Run("Source", func(t *testing.T) {
		stmts := sourceStatements(t)
		if len(stmts) < 30 {
			t.Fatalf("found %d SQL statements in the package, want the package's statements", len(stmts))
		}
		var bad []string
		for s, pos := range stmts {
			if p := tenancyProblem(s); p != "" {
				bad = append(bad, pos+": "+p+":\n\t"+spaces.ReplaceAllString(strings.TrimSpace(s), " "))
			}
		}
		sort.Strings(bad)
		for _, b := range bad {
			t.Error(b)
		}
	})
	t.Run("Built", func(t *testing.T) {
		ctx := context.Background()
		db := dbtest.New(t)
		if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 200, Subscribers: 50, Seed: 3, Now: time.Now()}, io.Discard); err != nil {
			t.Fatal(err)
		}
		var sf, pid int64
		if err := db.QueryRow("SELECT storefront_id, id FROM purchases WHERE account_id = 1 LIMIT 1").Scan(&sf, &pid); err != nil {
			t.Fatal(err)
		}
		stmts, err := db.BuiltStatements(ctx, 1, sf, pid)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, s := range stmts {
			if seen[s] {
				continue
			}
			seen[s] = true
			// Collections take one placeholder per id: compare them with one.
			s = regexp.MustCompile(`IN \((\?,\s*)+\?\)`).ReplaceAllString(s, "IN (?)")
			if p := tenancyProblem(s); p != "" {
				t.Errorf("%s:\n\t%s", p, s)
			}
		}
		if len(seen) < 20 {
			t.Fatalf("recorded %d distinct statements, want every filter's", len(seen))
		}
	})
}
