package store

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// Hooks for the external tests (package store_test), which use storetest and so cannot live
// in package store.
var (
	Backends = backends
	OpenT    = openT
	DumpT    = dump
	StateTTL = stateTTL
)

// WaitStats waits for a running statistics refresh.
func WaitStats(d *DB) { d.stats.wait() }

// SecondWriter is another DB on d's connections, as a second process on the same database
// would be: its own state cache and write lock.
func SecondWriter(d *DB) *DB { return &DB{be: d.be, log: d.log} }

// PostgresPool is the pool of a PostgreSQL DB.
func PostgresPool(t *testing.T, d *DB) *pgxpool.Pool {
	t.Helper()
	pg, ok := sqldb.Unwrap(d.be).(*sqldb.PG)
	if !ok {
		t.Fatal("not a PostgreSQL store")
	}
	return pg.Pool()
}
