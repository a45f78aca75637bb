package store_test

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
	"github.com/rollgate/rollgate/internal/testutil"
)

var transferBenchRows = flag.Int("transfer-bench-rows", 20_000, "transfers of the account BenchmarkTransferPages pages")

// BenchmarkTransferPages reads the counted 20-row pages the transfer lists serve most, one at
// a time, on SQLite and on PostgreSQL (skipped when unreachable), from an account with
// -transfer-bench-rows transfers (storetest.FillTransfers): its first page in both directions,
// in one direction, a page 90 % deep by cursor, and the first page of its denom. Each is one
// statement, the total riding on the page's (docs/performance.md).
//
//	go test ./internal/store -run '^$' -bench BenchmarkTransferPages -benchtime 2000x
func BenchmarkTransferPages(b *testing.B) {
	ctx := context.Background()
	n := *transferBenchRows
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			dsn := "sqlite:" + filepath.Join(b.TempDir(), "t.db")
			if backend == "postgres" {
				dsn = testutil.PostgresDSN(b)
			}
			db, err := store.Open(ctx, dsn, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if err := storetest.FillTransfers(ctx, db, 0, n); err != nil {
				b.Fatal(err)
			}
			acc := storetest.TransferAccount()
			deep, err := db.Transfers(ctx, store.TransferFilter{Account: acc}, store.Page{Limit: 1, Desc: true, Offset: int64(n) * 9 / 10})
			if err != nil || len(deep.Transfers) != 1 {
				b.Fatal(err, len(deep.Transfers))
			}
			page := store.Page{Limit: 20, Desc: true, CountTotal: true}
			deepPage := page
			deepPage.After = store.Cursor{Kind: store.CursorSequence, Value: deep.Transfers[0].ID}
			for _, c := range []struct {
				name string
				f    store.TransferFilter
				p    store.Page
			}{
				{"account", store.TransferFilter{Account: acc}, page},
				{"account_in", store.TransferFilter{Account: acc, Direction: store.DirectionIn}, page},
				{"account_deep_cursor", store.TransferFilter{Account: acc}, deepPage},
				{"denom", store.TransferFilter{Denom: storetest.TransferDenom}, page},
			} {
				b.Run(c.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						got, err := db.Transfers(ctx, c.f, c.p)
						if err != nil || len(got.Transfers) != 20 || got.Total == 0 {
							b.Fatalf("%d rows, total %d: %v", len(got.Transfers), got.Total, err)
						}
					}
				})
			}
		})
	}
}
