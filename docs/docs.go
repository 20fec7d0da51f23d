// Package docs holds the product's documents that the dashboard serves as they stand
// in the repository.
package docs

import _ "embed"

// Search is docs/SEARCH.md: the search language of the lists and the API's q.
//
//go:embed SEARCH.md
var Search string
