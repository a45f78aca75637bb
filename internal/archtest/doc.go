// Package archtest holds the tests that keep docs/ARCHITECTURE.md true of the tree: its import
// rules, checked on every package's imports as `go list` reports them, and its package table,
// which must name every package of the module; and that the repository stands alone: every
// repository path a comment or document names exists, and none leads outside it. It has no code
// of its own.
package archtest
