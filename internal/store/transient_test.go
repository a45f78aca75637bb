package store

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/testutil"
)

// TestWriteAfterTerminatedSessions: after every session of the store's database was ended,
// a failed write leaves the pool reset, so the retry succeeds at once, and the reader
// answers without an error.
func TestWriteAfterTerminatedSessions(t *testing.T) {
	ctx := context.Background()
	dsn := testutil.PostgresDSN(t)
	db := openT(t, dsn)
	m := buildModel(12)
	if err := db.WriteBlocks(ctx, m.bundles[:6]); err != nil {
		t.Fatal(err)
	}
	// Several idle pooled connections, as a serving API leaves.
	for range 4 {
		if _, err := db.Txs(ctx, TxFilter{Account: acct(1)}, Page{Limit: 3, CountTotal: true}); err != nil {
			t.Fatal(err)
		}
	}
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	terminate := func() int {
		t.Helper()
		var n int
		err := admin.QueryRow(ctx, `SELECT COUNT(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := terminate(); n == 0 {
		t.Fatal("no session to terminate")
	}
	// The reader retries on a fresh connection.
	db.state = stateCache{}
	if page, err := db.Txs(ctx, TxFilter{}, Page{Limit: 3, CountTotal: true}); err != nil || len(page.Txs) == 0 {
		t.Fatalf("read after the sessions ended: %+v %v", page, err)
	}
	terminate()
	// A write may fail once on a dead connection; the next attempt must succeed.
	err = db.WriteBlocks(ctx, m.bundles[6:])
	if err != nil {
		if !IsTransient(err) {
			t.Fatalf("write after the sessions ended: %v (not transient)", err)
		}
		if err := db.WriteBlocks(ctx, m.bundles[6:]); err != nil {
			t.Fatalf("retry after a reset: %v", err)
		}
	}
	if h, err := db.IndexedHeight(ctx); err != nil || h != 12 {
		t.Fatalf("height %d %v", h, err)
	}
}
