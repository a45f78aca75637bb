// Package sqldb is the one SQL layer both stores stand on: the indexer's store
// (internal/store) and the router's transfer tracker (internal/router/track) keep only their
// schema and queries, and open, migrate and classify database errors here.
//
// It holds the two backends (SQLite through modernc.org/sqlite, PostgreSQL through pgx), DSN
// parsing and redaction (no credential reaches an error or a log line), the pools with their
// read slots and statement cache, the COPY helper, one migration runner over an fs.FS with a
// version table each store names, the schema check of read-only openers (a reader refuses a
// schema newer than it knows, and only the writer runs DDL), the open-with-retry of transient
// failures and their classification (IsTransient, SessionLost).
//
// Queries are written with '?' placeholders; the PostgreSQL side rewrites them to $n.
package sqldb
