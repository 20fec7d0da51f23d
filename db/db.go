// Package db holds the schema of storefront as numbered SQL migrations, one DDL
// statement per file (MySQL commits DDL at once, so a file never half-applies).
package db

import "embed"

// Migrations is the embedded migrations folder, read by goose.
//
//go:embed migrations/*.sql
var Migrations embed.FS
