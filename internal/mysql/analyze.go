package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
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
	if err := json.Unmarshal(analyzeJSON(out), &doc); err != nil {
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

// analyzeJSON returns MariaDB's ANALYZE FORMAT=JSON output as valid JSON. MariaDB
// prints a condition into a JSON string as SQL, its literals quoted and escaped as SQL:
// for the value "o'b"<tab>% the attached condition reads `like '"o\'b"	%'`, with
// an unescaped double quote and tab and an escape (\') that JSON does not have. Inside
// such a literal each character is written again as JSON would write it; everything
// else is kept as MariaDB wrote it.
func analyzeJSON(out string) []byte {
	b := make([]byte, 0, len(out)+16)
	inString, inLiteral := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case !inString:
			inString = c == '"'
			b = append(b, c)
		case inLiteral && c == '\\' && i+1 < len(out):
			i++
			switch e := out[i]; e {
			case '\'':
				b = append(b, e)
			case '0':
				b = append(b, `\u0000`...)
			case 'Z':
				b = append(b, `\u001a`...)
			case '\\', '"', 'b', 'f', 'n', 'r', 't', '/':
				b = append(b, '\\', e)
			default:
				b = append(b, '\\', '\\', e)
			}
		case inLiteral && c == '"':
			b = append(b, '\\', '"')
		case inLiteral && c < 0x20:
			b = append(b, fmt.Sprintf(`\u%04x`, c)...)
		case c == '\\' && i+1 < len(out):
			b = append(b, c, out[i+1])
			i++
		default:
			if c == '\'' {
				inLiteral = !inLiteral
			}
			inString = inLiteral || c != '"'
			b = append(b, c)
		}
	}
	return b
}
