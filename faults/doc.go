// Package faults holds storefront's fault-injection and load tests (see
// docs/RELIABILITY.md): the database stopped under load, the SMTP server down,
// SIGTERM under load, kill -9 during an import, and a steady mixed load. The tests
// build the real binary and run it against a private mariadbd of their own; they
// never touch a shared database server. The package has no code of its own.
package faults
