package store_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
	"github.com/rollgate/rollgate/internal/testutil"
)

func TestReopenKeepsDataAndMigrations(t *testing.T) {
	path := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	ctx := context.Background()
	db, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := storetest.Fill(ctx, db, 25, storetest.Options{TxsPerBlock: 5, BatchBlocks: 2}); err != nil {
		t.Fatal(err)
	}
	d1 := store.DumpT(t, db)
	db.Close()
	if err := store.Migrate(ctx, path); err != nil {
		t.Fatal(err)
	}
	db2 := store.OpenT(t, path)
	if d2 := store.DumpT(t, db2); d1 != d2 {
		t.Fatal("reopen changed the data")
	}
	if h, _ := db2.IndexedHeight(ctx); h != 5 {
		t.Fatalf("height %d", h)
	}
	page, err := db2.Txs(ctx, store.TxFilter{Account: storetest.Account(3), SignerOnly: true}, store.Page{Limit: 10, Desc: true, CountTotal: true})
	if err != nil || page.Total == 0 || len(page.Txs) == 0 {
		t.Fatalf("synthetic account txs: %+v %v", page, err)
	}
	var v map[string]any
	if err := json.Unmarshal(page.Txs[0].JSON, &v); err != nil {
		t.Fatalf("synthetic JSON invalid: %v", err)
	}
}

// TestSyntheticSameOnBothBackends: the bulk path (COPY on PostgreSQL, prepared inserts on
// SQLite) stores the same rows, ranks and counters, batch boundaries notwithstanding.
func TestSyntheticSameOnBothBackends(t *testing.T) {
	dumps := map[string]string{}
	for name, open := range store.Backends(t) {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			ctx := context.Background()
			o := storetest.Options{TxsPerBlock: 7, Accounts: 13, BatchBlocks: 4}
			if err := storetest.Fill(ctx, db, 150, o); err != nil {
				t.Fatal(err)
			}
			if err := storetest.Fill(ctx, db, 95, o); err != nil {
				t.Fatal(err)
			}
			page, err := db.Txs(ctx, store.TxFilter{Account: storetest.Account(3), SignerOnly: true}, store.Page{Limit: 1000, CountTotal: true})
			if err != nil || int(page.Total) != len(page.Txs) || page.Total == 0 {
				t.Fatalf("signer page: %d txs, total %d, %v", len(page.Txs), page.Total, err)
			}
			for _, tx := range page.Txs {
				if tx.Sequence%13 != 3 {
					t.Fatalf("sequence %d not signed by account 3", tx.Sequence)
				}
			}
			dumps[name] = store.DumpT(t, db)
		})
	}
	if len(dumps) == 2 && dumps["sqlite"] != dumps["postgres"] {
		t.Error("sqlite and postgres dumps differ")
	}
}

// A bulk load on PostgreSQL leaves the tables analyzed, so a lookup by hash is planned on the
// hash index even where autovacuum is off (as on the benchmark machine).
func TestPostgresAnalyzesAfterBulkWrite(t *testing.T) {
	db := store.OpenT(t, testutil.PostgresDSN(t))
	ctx := context.Background()
	pool := store.PostgresPool(t, db)
	if err := storetest.Fill(ctx, db, 20_000, storetest.Options{}); err != nil {
		t.Fatal(err)
	}
	store.WaitStats(db)
	for _, table := range []string{"block", "tx", "tx_accounts", "tx_msg_types", "account_dict", "msg_type_dict"} {
		var analyzed bool
		var reltuples float64
		err := pool.QueryRow(ctx, `SELECT s.last_analyze IS NOT NULL, c.reltuples FROM pg_stat_user_tables s
			JOIN pg_class c ON c.oid = s.relid WHERE s.relname = $1`, table).Scan(&analyzed, &reltuples)
		if err != nil {
			t.Fatal(err)
		}
		if !analyzed || reltuples <= 0 {
			t.Errorf("%s: analyzed %v, reltuples %v after a bulk write", table, analyzed, reltuples)
		}
	}
	var hash []byte
	if err := pool.QueryRow(ctx, "SELECT hash FROM tx WHERE sequence = 12345").Scan(&hash); err != nil {
		t.Fatal(err)
	}
	var plan []string
	r, err := pool.Query(ctx, "EXPLAIN SELECT sequence, height, data FROM tx WHERE hash = $1", hash)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var line string
		if err := r.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan[0], "Index Scan") || !strings.Contains(strings.Join(plan, "\n"), "tx_hash") {
		t.Errorf("lookup by hash is not an index scan on the hash index:\n%s", strings.Join(plan, "\n"))
	}
}

// The readers' cached indexed_height: this DB's own writes are visible at once; another
// process's writes once the cached row is older than the state cache TTL.
func TestIndexedHeightCache(t *testing.T) {
	for name, open := range store.Backends(t) {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			ctx := context.Background()
			fill := func(w store.Writer, txs int) {
				t.Helper()
				if err := storetest.Fill(ctx, w, txs, storetest.Options{TxsPerBlock: 5, BatchBlocks: 2, Accounts: 2}); err != nil {
					t.Fatal(err)
				}
			}
			check := func(r store.Reader, height, txs int64) {
				t.Helper()
				h, err := r.IndexedHeight(ctx)
				if err != nil || h != height {
					t.Fatalf("IndexedHeight %d %v, want %d", h, err, height)
				}
				page, err := r.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1, Desc: true, CountTotal: true})
				if err != nil || page.Total != txs || len(page.Txs) != 1 || page.Txs[0].Sequence != txs {
					t.Fatalf("newest tx page %+v %v, want %d txs", page, err, txs)
				}
				bp, err := r.Blocks(ctx, store.Page{Limit: 1, Desc: true, CountTotal: true})
				if err != nil || bp.Total != height || bp.Blocks[0].Height != height {
					t.Fatalf("newest block page %+v %v, want height %d", bp, err, height)
				}
				// The filtered lists' cached lookups follow the writes too.
				lists := []struct {
					name string
					f    store.TxFilter
					want int64
				}{
					// Account 0 of 2 signs the even sequences.
					{"signer", store.TxFilter{Account: storetest.Account(0), SignerOnly: true}, txs / 2},
					// MsgSend is the type of sequences ≡ 0..7 (mod 10).
					{"msgs", store.TxFilter{MsgTypes: []string{storetest.MsgTypes[0]}}, txs / 10 * 8},
					{"newest height", store.TxFilter{Height: height}, 5},
					{"next height", store.TxFilter{Height: height + 1}, 0},
				}
				for _, l := range lists {
					page, err := r.Txs(ctx, l.f, store.Page{Limit: 100, CountTotal: true})
					if err != nil || page.Total != l.want || int64(len(page.Txs)) != l.want {
						t.Fatalf("%s: total %d, %d txs, %v; want %d", l.name, page.Total, len(page.Txs), err, l.want)
					}
				}
			}
			fill(db, 10)
			check(db, 2, 10)
			fill(db, 10) // the cached row is replaced by the commit
			check(db, 4, 20)

			// A second writer on the same database, as a separate process would be.
			other := store.SecondWriter(db)
			fill(other, 10)
			time.Sleep(store.StateTTL)
			check(db, 6, 30)
		})
	}
}
