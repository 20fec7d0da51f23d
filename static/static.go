// Package static holds the dashboard's served assets (htmx, built CSS, the icon), embedded into
// the binary so that running it needs no Node.
package static

import "embed"

// Files is the embedded asset folder.
//
//go:embed *.txt *.css *.js *.svg
var Files embed.FS
