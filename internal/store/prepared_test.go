package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/sqldb"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestPostgresReadsArePrepared: point reads run as prepared statements of pgx's statement
// cache, so PostgreSQL plans each query text once per connection rather than on every
// request (planning a point read costs ~0.5–4 ms against ~0.1 ms to execute it; see
// docs/performance.md). With one pooled connection, the statements a read sent are that
// session's prepared statements.
func TestPostgresReadsArePrepared(t *testing.T) {
	dsn := testutil.PostgresDSN(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	ctx := context.Background()
	db, err := Open(ctx, dsn+sep+"pool_max_conns=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Block(ctx, 7); !errors.Is(err, ErrNotFound) {
		t.Fatalf("block of an empty store: %v", err)
	}
	if _, err := db.Tx(ctx, make([]byte, 32)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("tx of an empty store: %v", err)
	}
	pool := PostgresPool(t, db)
	r, err := pool.Query(ctx, "SELECT statement FROM pg_prepared_statements")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for r.Next() {
		var s string
		if err := r.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FROM block WHERE height = $1", "FROM tx WHERE hash = $1"} {
		found := false
		for _, s := range got {
			found = found || strings.Contains(s, want)
		}
		if !found {
			t.Errorf("no prepared statement holds %q; the session's: %q", want, got)
		}
	}
}

// Every table of the schema is refreshed by analyze, except the single-row state tables
// (whose plans do not depend on statistics): a table added without its ANALYZE would be
// planned from its empty state for good (see analyzedTables).
func TestAnalyzedTablesCoverSchema(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, testutil.PostgresDSN(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := PostgresPool(t, db).Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, name := range strings.Split(analyzedTables, ",") {
		listed[strings.TrimSpace(name)] = true
	}
	singleRow := map[string]bool{"indexed_height": true, "schema_version": true, "evm_state": true, "rich_list_state": true, "chain_identity": true, "chain_state": true}
	for _, table := range tables {
		if !listed[table] && !singleRow[table] {
			t.Errorf("table %s is not in analyzedTables", table)
		}
		delete(listed, table)
	}
	for table := range listed {
		t.Errorf("analyzedTables names %s, which the schema does not have", table)
	}
	if err := (pgAnalyzer{sqldb.Unwrap(db.be).(*sqldb.PG)}).analyze(ctx); err != nil {
		t.Fatal(err)
	}
}
