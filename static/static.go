// Package static holds the dashboard's served assets (htmx, built CSS), embedded into
// the binary so that running it needs no Node.
package static

import "embed"

// Files is the embedded asset folder.
//
//go:embed *.txt *.css *.js
var Files embed.FS
