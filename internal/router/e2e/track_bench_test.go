//go:build rollgatebench

package e2e

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestBenchTrackLatency measures status latency: from the moment the devnet commits the block
// holding a transfer's last chain event to the moment the tracker commits the transfer's
// terminal status (what /v2/tx/status reads), with the tracker running as `rollgate router`
// runs it (Run, default 200 ms poll). On demand only (the build tag keeps it out of the suite,
// which would otherwise count a skip): go test -tags rollgatebench ./internal/router/e2e -run
// TestBenchTrackLatency -v (ROLLGATE_BENCH_TRANSFERS sets the fleet, default 500).
func TestBenchTrackLatency(t *testing.T) {
	size := 500
	if v := os.Getenv("ROLLGATE_BENCH_TRANSFERS"); v != "" {
		if err := json.Unmarshal([]byte(v), &size); err != nil {
			t.Fatal(err)
		}
	}
	dsn := "" // SQLite; ROLLGATE_BENCH_STORE=postgres runs it on a fresh PostgreSQL database
	if os.Getenv("ROLLGATE_BENCH_STORE") == "postgres" {
		dsn = testutil.PostgresDSN(t)
	}
	n := startTrackNet(t, dsn)
	n.t = t
	fs := n.fleet(size)
	var mu sync.Mutex
	committed := map[string]time.Time{} // block time → when ProduceBlock returned
	seen := map[string]time.Time{}      // hash → when its terminal status was committed to the store
	// The moment a status is committed is the moment /v2/tx/status (a store read) shows it:
	// taken from the tracker's write hook rather than by polling 2,000 rows, which would
	// compete with the tracker for the CPU.
	var log *slog.Logger // ROLLGATE_BENCH_LOG=1: the tracker's debug log (round and scan timings) on stderr
	if os.Getenv("ROLLGATE_BENCH_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	tr := track.New(n.st, registry.NewLive(n.reg), track.Config{Log: log, Observe: func(_, hash, state string) {
		if track.Terminal(state) {
			mu.Lock()
			seen[hash] = time.Now()
			mu.Unlock()
		}
	}})
	for _, f := range fs {
		if _, err := tr.Track(n.ctx, f.chainID, f.hash); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = tr.Run(ctx) }()
	defer func() { cancel(); wg.Wait() }()
	n.broadcastAll(fs)

	for step := 0; ; step++ {
		mu.Lock()
		done := len(seen)
		mu.Unlock()
		if done == len(fs) {
			break
		}
		if step > 30 {
			t.Fatalf("%d of %d terminal after 30 blocks", done, len(fs))
		}
		if err := n.tn.step(n.ctx); err != nil {
			t.Fatal(err)
		}
		blk, err := n.rpc[l1ID].Block(n.ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if log != nil {
			log.Debug("bench block committed", "height", blk.Block.Header.Height, "time", blk.Block.Header.Time.UTC().Format(time.RFC3339))
		}
		mu.Lock()
		committed[blk.Block.Header.Time.UTC().Format(time.RFC3339)] = time.Now()
		mu.Unlock()
		time.Sleep(time.Second) // one devnet block interval
	}
	var lat []time.Duration
	var lags []int
	for _, f := range fs {
		tr, _ := n.st.Get(n.ctx, f.chainID, f.hash)
		var s track.StatusResponse
		if err := json.Unmarshal(tr.Doc, &s); err != nil {
			t.Fatal(err)
		}
		at, ok := committed[lastEventTime(s)]
		if !ok {
			t.Fatalf("%s: last event at %s not in a block produced here", f.hash, lastEventTime(s))
		}
		lat = append(lat, seen[f.hash].Sub(at))
		// In blocks: how many later blocks the devnet committed before the status turned
		// terminal (0: before the next one), what "within 2 block times" counts when the
		// devnet's own block production stretches the block time on a loaded machine.
		n := 0
		for _, c := range committed {
			if c.After(at) && !c.After(seen[f.hash]) {
				n++
			}
		}
		lags = append(lags, n)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	sort.Ints(lags)
	st := tr.Stats()
	t.Logf("%d transfers: status latency (block committed → terminal in the store) p50 %s, p99 %s, max %s; in blocks committed meanwhile p50 %d, p99 %d, max %d; tracker: %d blocks, %d upstream calls, %d evaluations",
		len(fs), lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*99/100].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond),
		lags[len(lags)/2], lags[len(lags)*99/100], lags[len(lags)-1], st.Blocks, st.Calls, st.Evaluations)
}
