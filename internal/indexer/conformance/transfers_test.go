package conformance

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
)

// allTransfers walks the whole transfers index in id order.
func allTransfers(t *testing.T, db *store.DB) []store.TransferRecord {
	t.Helper()
	var out []store.TransferRecord
	p := store.Page{Limit: 500}
	for {
		page, err := db.Transfers(context.Background(), store.TransferFilter{}, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Transfers) == 0 {
			return out
		}
		out = append(out, page.Transfers...)
		p.After = store.Cursor{Kind: store.CursorSequence, Value: page.Transfers[len(page.Transfers)-1].ID}
	}
}

// forgetTransfers makes the store at dsn one whose transfers index started above height
// upTo: its rows at or below it are deleted and the counts recomputed from what is left, the
// state a store indexed before the index existed has after its migration.
func forgetTransfers(t *testing.T, dsn string, upTo int64) {
	t.Helper()
	driver, name := "pgx", dsn
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		driver, name = "sqlite", "file:"+path+"?_pragma=busy_timeout(5000)"
	}
	raw, err := sql.Open(driver, name)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{
		fmt.Sprintf("DELETE FROM transfer WHERE height <= %d", upTo),
		"DELETE FROM transfer_account",
		"DELETE FROM transfer_denom_count",
		`INSERT INTO transfer_account (account, n_in, n_out, n_self) SELECT account, SUM(n_in), SUM(n_out), SUM(n_self) FROM (
		  SELECT to_addr AS account, 1 AS n_in, 0 AS n_out, CASE WHEN from_addr = to_addr THEN 1 ELSE 0 END AS n_self FROM transfer WHERE to_addr IS NOT NULL
		  UNION ALL SELECT from_addr, 0, 1, 0 FROM transfer WHERE from_addr IS NOT NULL) c GROUP BY account`,
		"INSERT INTO transfer_denom_count (denom, n) SELECT denom, COUNT(*) FROM transfer GROUP BY denom",
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestTransferBackfillCaptured: on each captured real chain and both backends, a store whose
// transfers index started halfway (its older heights without transfers) gains, by the backfill
// from its stored txs, exactly the rows ingestion wrote (ids, order and every field) and exact
// counts; the backfill stopped after two batches resumes where it left off, and a second run
// finds nothing to do.
func TestTransferBackfillCaptured(t *testing.T) {
	for _, be := range storeBackends {
		for _, c := range capturedFixtures {
			if be.Name == "postgres" && c.vm == vmkind.Wasm {
				continue // its ingestion takes 90 s here; SQLite reads the same rows
			}
			t.Run(be.Name+"/"+c.fixture, func(t *testing.T) {
				ctx := context.Background()
				dsn := be.DSN(t)
				chain := ingestCaptured(t, c.fixture, c.vm, dsn)
				want := allTransfers(t, chain.db)
				top, err := chain.db.IndexedHeight(ctx)
				if err != nil {
					t.Fatal(err)
				}
				mid := top / 2
				// The backfill reads up to the height below the lowest one left holding
				// transfers.
				below, end := 0, top
				for _, r := range want {
					if r.Height <= mid {
						below++
					} else if r.Height-1 < end {
						end = r.Height - 1
					}
				}
				if below == 0 || below == len(want) {
					t.Fatalf("%d of %d transfers at or below height %d: the split tests nothing", below, len(want), mid)
				}
				forgetTransfers(t, dsn, mid)
				read := ingest.BackfillReading(profile.TransferVM(c.vm), "init")
				// Two batches, then a new process (the state is in the store) to the end.
				for i := 0; i < 2; i++ {
					if _, err := chain.db.BackfillTransfers(ctx, 5, read); err != nil {
						t.Fatal(err)
					}
				}
				db2, err := store.Open(ctx, dsn, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer db2.Close()
				var reports int
				st, err := ingest.BackfillTransfers(ctx, db2, read, 5, func(store.TransferBackfill) { reports++ })
				if err != nil {
					t.Fatal(err)
				}
				if !st.Done() || st.End != end || st.Rows != int64(below) {
					t.Errorf("backfill ended at %+v, want heights up to %d and %d rows", st, end, below)
				}
				if wantReports := int((end-st.Start+1+4)/5) - 2; reports != wantReports {
					t.Errorf("%d progress reports, want %d", reports, wantReports)
				}
				got := allTransfers(t, db2)
				if len(got) != len(want) {
					t.Fatalf("%d transfers after the backfill, want %d", len(got), len(want))
				}
				for i := range got {
					g, w := got[i], want[i]
					if g.ID != w.ID || g.Height != w.Height || !g.Time.Equal(w.Time) || !bytes.Equal(g.TxHash, w.TxHash) || g.MsgIndex != w.MsgIndex ||
						g.Kind != w.Kind || !bytes.Equal(g.From, w.From) || !bytes.Equal(g.To, w.To) || g.Denom != w.Denom ||
						!bytes.Equal(g.Contract, w.Contract) || g.Amount != w.Amount || g.TokenID != w.TokenID ||
						g.Counterparty != w.Counterparty || g.CounterpartyAddr != w.CounterpartyAddr {
						t.Fatalf("#%d: backfilled %+v, ingested %+v", i, g, w)
					}
				}
				if err := db2.CheckTransferCounts(ctx); err != nil {
					t.Fatal(err)
				}
				again, err := db2.BackfillTransfers(ctx, 5, read)
				if err != nil || !again.Done() || again.Rows != st.Rows {
					t.Errorf("a second run: %+v, %v", again, err)
				}
				t.Logf("%s: %d transfers, %d backfilled (heights %d..%d of %d)", c.fixture, len(want), below, st.Start, end, top)
			})
		}
	}
}
