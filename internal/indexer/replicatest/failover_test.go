package replicatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestFailover crashes the PostgreSQL primary in the middle of ingestion (pg_ctl stop -m
// immediate), promotes the hot standby (pg_ctl promote) a second later, and requires:
//   - the writer, whose DSN names both servers with target_session_attrs=read-write, resumes
//     on the promoted server by itself (no restart) and reaches the end of the chain;
//   - the two API replicas on the standby answer every request throughout with 200, or 503
//     with Retry-After, never anything else;
//   - the final store dumps (dictionary ids aside: testutil.CanonicalDump) exactly like a
//     clean run's: nothing lost, nothing written twice.
//
// Commits wait for the standby (synchronous_standby_names = '*'): with asynchronous
// replication the promoted server may lack the writer's last commits, which this test does
// not cover (docs/operations.md). The writer's downtime is logged.
func TestFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two PostgreSQL clusters and crashes one")
	}
	initial := envInt(t, "ROLLGATE_FAILOVER_INITIAL", 60)
	crashAt := envInt(t, "ROLLGATE_FAILOVER_CRASH_AT", 110)
	final := envInt(t, "ROLLGATE_FAILOVER_FINAL", 180)
	tp := newTopology(t, topoOpts{initial: initial, failover: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lag := startLagMeter(t, ctx, tp.pDSN, tp.sDSN)
	lag.waitHeight(t, initial, 3*time.Minute)

	// Probes: each replica is asked a list, /status and a pinned block over and over.
	var probes, unavailable atomic.Int64
	probeCtx, stopProbes := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, r := range tp.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for probeCtx.Err() == nil {
				for _, p := range []string{"/status", "/indexer/block/v1/blocks?pagination.limit=5", "/indexer/block/v1/blocks/" + fmt.Sprint(initial), "/indexer/tx/v1/txs?pagination.limit=5"} {
					a, err := get(probeCtx, r+p)
					if probeCtx.Err() != nil {
						return
					}
					probes.Add(1)
					switch {
					case err != nil:
						t.Errorf("GET %s%s: %v", r, p, err)
					case a.status == http.StatusServiceUnavailable && a.header.Get("Retry-After") != "":
						unavailable.Add(1)
					case a.status != http.StatusOK:
						t.Errorf("GET %s%s during the failover: %d (Retry-After %q) %.300s", r, p, a.status, a.header.Get("Retry-After"), a.body)
					}
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}

	go pace(ctx, tp.top, final, 100*time.Millisecond)
	lag.waitHeight(t, crashAt, 3*time.Minute)
	tp.primary.Stop("immediate")
	crashed := time.Now()
	atCrash := lag.standbyH.Load()
	time.Sleep(time.Second)
	tp.standby.Promote()
	promoted := time.Now()
	// The first height the writer adds on the promoted server ends its downtime.
	deadline := time.Now().Add(3 * time.Minute)
	for lag.standbyH.Load() <= atCrash {
		if done, err := tp.writer.exited(); done {
			t.Fatalf("the writer exited after the primary crashed: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the writer wrote nothing on the promoted server within 3 minutes (still at %d)", atCrash)
		}
		time.Sleep(5 * time.Millisecond)
	}
	resumed := time.Now()
	t.Logf("failover: primary crashed at height %d; standby promoted %v later (1 s of it deliberate); writer downtime %v (%v after the promotion)",
		atCrash, promoted.Sub(crashed).Round(time.Millisecond), resumed.Sub(crashed).Round(time.Millisecond), resumed.Sub(promoted).Round(time.Millisecond))
	for lag.standbyH.Load() < final {
		if done, err := tp.writer.exited(); done {
			t.Fatalf("the writer exited: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the writer did not reach %d on the promoted server (at %d)", final, lag.standbyH.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, r := range tp.replicas {
		waitQuiet(t, r, final)
	}
	stopProbes()
	wg.Wait()
	t.Logf("replicas: %d answers during the failover, %d of them 503 with Retry-After, none else", probes.Load(), unavailable.Load())

	// The reference: the same chain ingested by a writer nothing interrupted.
	srv, err := replay.New(testutil.Fixture(t, testutil.Busy), replay.MaxHeight(func() int64 { return final }), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	refDSN := testutil.PostgresDSN(t)
	addr := freeAddr(t)
	ref := startCLI(t, "clean-run", append([]string{"indexer", "--mode", "all", "--db", refDSN,
		"--rpc-url", ts.URL, "--rest-url", ts.URL, "--json-rpc-url", ts.URL, "--listen", addr}, chainFlags...)...)
	waitHTTP(t, ref, "http://"+addr+"/healthz", 200, 2*time.Minute)
	waitQuiet(t, "http://"+addr, final)
	want := testutil.CanonicalDump(t, dumpOf(t, refDSN))
	got := testutil.CanonicalDump(t, dumpOf(t, tp.sDSN))
	if !bytes.Equal(got, want) {
		t.Fatalf("the store after the failover differs from a clean run's: %s", firstDiffLine(want, got))
	}
	t.Logf("final store after the failover equals the clean run's (%d bytes canonical dump)", len(got))
}

// waitQuiet waits until the API at base reports height h with its followers (internal txs,
// rich list) there too, so the store no longer changes.
func waitQuiet(t *testing.T, base string, h int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	var last []byte
	for time.Now().Before(deadline) {
		a, err := get(context.Background(), base+"/status")
		if err == nil && a.status == http.StatusOK {
			last = a.body
			var st struct {
				Height           int64  `json:"height"`
				InternalTxHeight *int64 `json:"internal_tx_height"`
				RichListHeight   *int64 `json:"rich_list_height"`
			}
			// Every deployment here indexes the busy EVM capture with internal txs and the rich
			// list on, so both heights must be there: /status omits a height of 0, which an
			// extension still at its start would otherwise pass for settled.
			if json.Unmarshal(a.body, &st) == nil && st.Height == h &&
				st.InternalTxHeight != nil && *st.InternalTxHeight == h && st.RichListHeight != nil && *st.RichListHeight == h {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s/status never settled at height %d: %s", base, h, last)
}
