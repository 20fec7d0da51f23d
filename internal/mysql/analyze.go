package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
)

// EntriesRead runs the statement under ANALYZE FORMAT=JSON and returns the index
// entries (or rows) it read over all its tables: each table's r_rows times r_loops.
// The bench and the plan tests measure a page's cost with it, a figure that does not
// depend on the machine's load.
func EntriesRead(ctx context.Context, db *sql.DB, s Statement) (float64, error) {
	var out string
	if err := db.QueryRowContext(ctx, "ANALYZE FORMAT=JSON "+s.Query, s.Args...).Scan(&out); err != nil {
		return 0, err
	}
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return 0, err
	}
	var read float64
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if t, ok := v["table"].(map[string]any); ok {
				rows, _ := t["r_rows"].(float64)
				loops, _ := t["r_loops"].(float64)
				read += rows * loops
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	return read, nil
}
