package store

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rollgate/rollgate/internal/sqldb"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestTransferCountsMigration: a store whose transfers were numbered densely (before the
// counts migration) comes out of it with height-numbered ids in the same order and exact
// counts, on both backends.
func TestTransferCountsMigration(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "m.db") },
		"postgres": func(t *testing.T) string { return testutil.PostgresDSN(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dsn := dsn(t)
			// The migrations before this one: every file but the counts migration.
			before := fstest.MapFS{}
			err := fs.WalkDir(migrationFiles, "migrations", func(p string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() || strings.HasSuffix(p, "_transfer_counts.sql") {
					return err
				}
				b, err := fs.ReadFile(migrationFiles, p)
				before[p] = &fstest.MapFile{Data: b}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			be, err := sqldb.Open(ctx, dsn, sqldb.Options{})
			if err != nil {
				t.Fatal(err)
			}
			old := schema
			old.FS = before
			if err := old.Apply(ctx, be, be.Dialect()); err != nil {
				t.Fatal(err)
			}
			// Dense ids as the earlier writer gave them: heights 3, 5 and 9 with 2, 3 and 1 rows.
			tx, err := be.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var rows [][]any
			id := int64(0)
			for _, hn := range [][2]int64{{3, 2}, {5, 3}, {9, 1}} {
				for k := int64(0); k < hn[1]; k++ {
					id++
					rows = append(rows, []any{id, hn[0], int64(0), []byte{1}, nil, TransferSend, acct(int(k % 2)), acct(int(k%3 + 1)), "uinit",
						nil, "1", nil, nil, nil})
				}
			}
			if err := tx.InsertRows(ctx, "transfer", transferCols, rows); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := be.Close(); err != nil {
				t.Fatal(err)
			}
			db := openT(t, dsn)
			page, err := db.Transfers(ctx, TransferFilter{}, Page{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			want := []int64{TransferID(3, 0), TransferID(3, 1), TransferID(5, 0), TransferID(5, 1), TransferID(5, 2), TransferID(9, 0)}
			if len(page.Transfers) != len(want) {
				t.Fatalf("%d transfers after the migration, want %d", len(page.Transfers), len(want))
			}
			for i, r := range page.Transfers {
				if r.ID != want[i] || !bytes.Equal(r.From, rows[i][6].([]byte)) || r.Height != rows[i][1].(int64) {
					t.Errorf("#%d: id %d height %d from %x, want id %d height %d from %x", i, r.ID, r.Height, r.From, want[i], rows[i][1], rows[i][6])
				}
			}
			if err := db.CheckTransferCounts(ctx); err != nil {
				t.Fatal(err)
			}
			// The next block's rows follow.
			b := BlockBundle{Block: Block{ChainID: "test-1", Height: 1, Hash: bytes.Repeat([]byte{1}, 32)}, Extensions: []ExtensionRows{
				TransferRows{{TxIndex: -1, MsgIndex: -1, Kind: TransferMint, To: acct(1), Denom: "uinit", Amount: "5"}}}}
			if err := db.WriteBlocks(ctx, []BlockBundle{b}); err != nil {
				t.Fatal(err)
			}
			if err := db.CheckTransferCounts(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
