package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rollgate/rollgate/internal/sqldb"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// txHashes is an extension that lives outside the store: one row per tx (height, index, hash)
// in a table of its own, written by its own writer. It is what a new extension is, the way
// extension.go describes: this file and no line of package store.
type txHashes struct{ noHooks }

func (*txHashes) Name() string         { return "test-tx-hashes" }
func (*txHashes) Needs() string        { return "nothing beyond the core" }
func (*txHashes) bind(*Pipeline) error { return nil }

func (*txHashes) tables() []store.ExtensionTable {
	return []store.ExtensionTable{{
		Name:         "test_tx_hash",
		HeightColumn: "height",
		SQLite: "CREATE TABLE IF NOT EXISTS test_tx_hash (height INTEGER NOT NULL, tx_index INTEGER NOT NULL, hash BLOB NOT NULL, PRIMARY KEY (height, tx_index));" +
			"CREATE INDEX IF NOT EXISTS test_tx_hash_hash ON test_tx_hash (hash)",
		Postgres: "CREATE TABLE IF NOT EXISTS test_tx_hash (height bigint NOT NULL, tx_index integer NOT NULL, hash bytea NOT NULL, PRIMARY KEY (height, tx_index));" +
			"CREATE INDEX IF NOT EXISTS test_tx_hash_hash ON test_tx_hash (hash)",
	}}
}

func (*txHashes) extract(_ context.Context, _ *RawBlock, _ []TxResult, b *store.BlockBundle) error {
	rows := make(txHashRows, len(b.Txs))
	for i, tx := range b.Txs {
		rows[i] = []any{tx.Height, tx.Index, tx.Hash}
	}
	b.Extensions = append(b.Extensions, rows)
	return nil
}

type txHashRows [][]any

func (txHashRows) WriterName() string               { return "test-tx-hashes" }
func (txHashRows) NewWriter() store.ExtensionWriter { return &txHashWriter{} }
func (r txHashRows) Count() int                     { return len(r) }

type txHashWriter struct{ rows [][]any }

func (w *txHashWriter) Add(_ *store.BlockBundle, rows store.ExtensionRows, _ int64) {
	w.rows = append(w.rows, rows.(txHashRows)...)
}

func (w *txHashWriter) Write(ctx context.Context, tx sqldb.Tx, _ string) error {
	return tx.InsertRows(ctx, "test_tx_hash", []string{"height", "tx_index", "hash"}, w.rows)
}

// TestExtensionOwnTable ingests the captured minievm chain with an extension that owns its
// table and writer outside package store, on both backends: its table holds exactly the
// store's txs, a prune removes its rows below the floor and no others, a Reset empties it.
func TestExtensionOwnTable(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
			if b == "postgres" {
				dsn = testutil.PostgresDSN(t)
			}
			db := openStore(t, dsn)
			src, _, top := replayFixture(t, "minievm", nil)
			cfg := fastConfig()
			cfg.StopAtHeight = top
			cfg.Extensions = []Extension{&txHashes{}}
			runPipeline(t, cfg, src, db, nil)

			raw, err := testutil.OpenRawStore(dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			txs := func(where string) []string {
				return hashRows(t, raw, "SELECT height, tx_index, hash FROM tx"+where+" ORDER BY sequence")
			}
			ext := func(where string) []string {
				return hashRows(t, raw, "SELECT height, tx_index, hash FROM test_tx_hash"+where+" ORDER BY height, tx_index")
			}
			all := txs("")
			if len(all) < 2 {
				t.Fatalf("the fixture stored %d txs; the test needs txs at two heights at least", len(all))
			}
			if diff := cmp.Diff(all, ext("")); diff != "" {
				t.Fatalf("the extension's table against the store's txs (-tx +ext):\n%s", diff)
			}

			// Prune to a floor that leaves txs on both sides of it.
			var lo, hi, indexed int64
			if err := raw.QueryRow("SELECT MIN(height), MAX(height) FROM tx").Scan(&lo, &hi); err != nil {
				t.Fatal(err)
			}
			if indexed, err = db.IndexedHeight(t.Context()); err != nil {
				t.Fatal(err)
			}
			floor := lo + 1
			if _, err := db.Prune(t.Context(), indexed-floor+1, 1000); err != nil {
				t.Fatal(err)
			}
			kept := txs(fmt.Sprintf(" WHERE height >= %d", floor))
			if len(kept) == 0 || len(kept) == len(all) {
				t.Fatalf("the prune to %d kept %d of %d txs: the floor must split them", floor, len(kept), len(all))
			}
			if diff := cmp.Diff(kept, ext("")); diff != "" {
				t.Errorf("after a prune to height %d (-txs kept +ext):\n%s", floor, diff)
			}

			if err := db.Reset(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got := ext(""); len(got) != 0 {
				t.Errorf("after Reset the extension's table holds %d rows", len(got))
			}
			// The table outlives the reset: ingesting again fills it again.
			runPipeline(t, cfg, src, db, nil)
			if diff := cmp.Diff(txs(""), ext("")); diff != "" {
				t.Errorf("re-ingested after Reset (-tx +ext):\n%s", diff)
			}
		})
	}
}

// A reader never runs DDL: an extension's tables are the writer's to create.
func TestExtensionTablesNotThroughReader(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	openStore(t, dsn)
	r, err := store.OpenReader(t.Context(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.EnsureExtensionTables(t.Context(), (&txHashes{}).tables()); err == nil {
		t.Fatal("a reader created an extension's table")
	}
}

func hashRows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h, i int64
		var hash []byte
		if err := rows.Scan(&h, &i, &hash); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d/%d/%X", h, i, hash))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
