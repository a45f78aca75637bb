// Package sqldbtest helps the stores' tests show that databases laid out by earlier code open
// unchanged on the SQL layer.
package sqldbtest

import (
	"context"
	"testing"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// LayOut lays out, by hand and without the migration runner, the database at dsn as a store's
// earlier code left it: the statements of create (its version table's DDL as that code ran
// it), then each migration file of m for the database's dialect, recorded in m.Table as that
// code recorded it, then the statements of after (rows written before). It returns the number
// of migrations applied.
func LayOut(t testing.TB, dsn string, m sqldb.Migrations, create []string, after ...string) int {
	t.Helper()
	ctx := context.Background()
	// Pools alone: OpenSQL runs nothing but a ping.
	raw, err := sqldb.OpenSQL(ctx, dsn, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ms, err := m.Load(raw.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := raw.W.ExecContext(ctx, raw.Q(q), args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	for _, q := range create {
		exec(q)
	}
	for _, mg := range ms {
		exec(mg.SQL)
		exec("INSERT INTO "+m.Table+" (version, name) VALUES (?, ?)", mg.Version, mg.Name)
	}
	for _, q := range after {
		exec(q)
	}
	return len(ms)
}
