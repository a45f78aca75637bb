package conformance

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/testutil"
	"github.com/rollgate/rollgate/internal/testutil/faults"
)

// TestUpstreamFaults: the busy capture's first 400 blocks (about 4,000
// txs with their EVM receipts, the first NFTs and the rich list), replayed behind
// the fault injector failing a quarter of all upstream calls — a 500 with a gateway body, a
// hang, a closed connection or truncated JSON, in equal shares — are ingested by the production
// wiring (CometBFT, REST and JSON-RPC clients with their default timeouts, hedging and retries;
// nothing tells them what the faults are), and the store must dump to the same rows as a run
// without faults.
//
// A hang lasts hangFor, the clients' default per-attempt timeout: a hang that hedging or the
// adaptive timeout does not cut short costs the whole 10 s attempt, and the hundred-odd hangs
// of a run would then outlast the test's two-minute deadline (both runs take a few seconds).
// Hangs are bounded only so that the replay server's handlers end when the test does.
func TestUpstreamFaults(t *testing.T) {
	const (
		// Bounded for CI: the whole capture takes about 8 times as long (its later blocks are
		// the busiest), and these blocks already meet each fault kind a hundred-odd times.
		stop    = 400
		rate    = 0.25
		hangFor = 10 * time.Second
	)
	dir := testutil.Fixture(t, testutil.Busy)
	serve := func(wrap func(http.Handler) http.Handler) string {
		// The fetch stage may ask an ERC-721 name() at another height than the capture holds
		// it (heights are fetched concurrently, and in another order under faults).
		srv, err := replay.New(dir, replay.MaxHeight(func() int64 { return stop }), replay.HeightFallback(replay.NFTFacts))
		if err != nil {
			t.Fatal(err)
		}
		var h http.Handler = srv
		if wrap != nil {
			h = wrap(h)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return ts.URL
	}
	cfg := ingest.Config{ChainID: "local-evm-1", VMType: "evm", RichList: true, StopAtHeight: stop}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp := t.TempDir()

	refDSN := "sqlite:" + filepath.Join(tmp, "ref.db")
	start := time.Now()
	if err := ingestWith(ctx, refDSN, serve(nil), cfg, nil, nil); err != nil {
		t.Fatalf("fault-free run: %v", err)
	}
	clean := time.Since(start)
	want, wantHeight := dump(t, refDSN)
	if wantHeight != stop {
		t.Fatalf("fault-free run stopped at %d, want %d", wantHeight, stop)
	}
	want = append(want, evmDump(t, refDSN)...)
	for _, table := range []string{"tx", "nft", "evm_tx", "evm_tx_accounts", "rich_list"} {
		if dumpRows(want, table) == 0 {
			t.Fatalf("the reference store has no %s row: the faulty run would not be compared on it", table)
		}
	}

	seed := testSeed(t, "ROLLGATE_FAULT_SEED", "fault")
	inj := faults.New(faults.Config{Rate: rate, Seed: seed, Hang: hangFor})
	dsn := "sqlite:" + filepath.Join(tmp, "faulty.db")
	start = time.Now()
	if err := ingestWith(ctx, dsn, serve(inj.Wrap), cfg, nil, nil); err != nil {
		t.Fatalf("run through faults: %v", err)
	}
	faulty := time.Since(start)

	counts, passed := inj.Counts()
	var failed int64
	for _, k := range faults.AllKinds {
		if counts[k] == 0 {
			t.Errorf("no %s fault was injected", k)
		}
		failed += counts[k]
	}
	share := float64(failed) / float64(failed+passed)
	// Only logged: no test asserts a timing (docs/performance.md has the measured figures).
	t.Logf("upstream: %d requests, %.1f%% failed %v; fault-free run %v, through faults %v",
		failed+passed, 100*share, counts, clean.Round(time.Millisecond), faulty.Round(time.Millisecond))
	if share < 0.2 {
		t.Errorf("only %.1f%% of upstream requests failed", 100*share)
	}

	got, gotHeight := dump(t, dsn)
	if gotHeight != stop {
		t.Fatalf("the run through faults stopped at %d, want %d", gotHeight, stop)
	}
	got = append(got, evmDump(t, dsn)...)
	// Dictionary ids follow batch boundaries, which depend on timing: compare them by value
	// (testutil.CanonicalDump); every other column must be identical.
	if got, want := testutil.CanonicalDump(t, got), testutil.CanonicalDump(t, want); !bytes.Equal(got, want) {
		t.Fatalf("the store filled through faults differs from the fault-free one: %s", firstDiff(want, got))
	}
}

// evmDump appends to store.Dump the tables it leaves out and this test must compare too: the
// EVM receipts (fetched over JSON-RPC, through the faults like the rest) and the rich list, in
// the dump's format, accounts given by value rather than dictionary id.
func evmDump(t *testing.T, dsn string) []byte {
	t.Helper()
	db, err := testutil.OpenRawStore(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var buf bytes.Buffer
	for _, q := range []struct{ table, query string }{
		{"evm_tx", `SELECT e.sequence, hex(e.hash), e.height, e.tx_index, hex(a.account), e.data, e.explorer
			FROM evm_tx e LEFT JOIN account_dict a ON a.id = e.signer_id ORDER BY e.sequence`},
		{"evm_tx_accounts", `SELECT hex(a.account), e.sequence, e.signer, e.ord, e.signer_ord
			FROM evm_tx_accounts e JOIN account_dict a ON a.id = e.account_id ORDER BY a.account, e.sequence`},
		{"rich_list", `SELECT denom, hex(account), hex(amount) FROM rich_list ORDER BY denom, account`},
		{"rich_list_denom", `SELECT denom, holders FROM rich_list_denom ORDER BY denom`},
		{"rich_list_alias", `SELECT alias, denom FROM rich_list_alias ORDER BY alias`},
		{"rich_list_state", `SELECT id, height FROM rich_list_state ORDER BY id`},
	} {
		dumpQuery(t, db, q.table, q.query, &buf)
	}
	return buf.Bytes()
}

// dumpQuery writes one query's rows to buf, a tab-separated line each (NULL as \N).
func dumpQuery(t *testing.T, db *sql.DB, table, query string, buf *bytes.Buffer) {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", table, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	fmt.Fprintf(buf, "## %s (%s)\n", table, strings.Join(cols, ", "))
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		for i, v := range vals {
			if i > 0 {
				buf.WriteByte('\t')
			}
			if v.Valid {
				buf.WriteString(strconv.Quote(v.String))
			} else {
				buf.WriteString(`\N`)
			}
		}
		buf.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", table, err)
	}
}
