package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/rollgate/rollgate/internal/store"
	rtestutil "github.com/rollgate/rollgate/internal/testutil"
)

// swapSource serves whichever fake chain is current: a node replaced behind the same URL.
type swapSource struct{ cur atomic.Pointer[fakeChain] }

func newSwapSource(c *fakeChain) *swapSource {
	s := &swapSource{}
	s.cur.Store(c)
	return s
}

func (s *swapSource) LatestHeight(ctx context.Context) (int64, error) {
	return s.cur.Load().LatestHeight(ctx)
}
func (s *swapSource) Block(ctx context.Context, h int64) (*RawBlock, error) {
	return s.cur.Load().Block(ctx, h)
}
func (s *swapSource) BlockResults(ctx context.Context, h int64) ([]TxResult, error) {
	return s.cur.Load().BlockResults(ctx, h)
}
func (s *swapSource) BlockTxs(ctx context.Context, h int64) ([]json.RawMessage, error) {
	return s.cur.Load().BlockTxs(ctx, h)
}
func (s *swapSource) BlockHash(ctx context.Context, h int64) ([]byte, error) {
	return s.cur.Load().BlockHash(ctx, h)
}
func (s *swapSource) Validators(ctx context.Context) ([]Validator, error) {
	return s.cur.Load().Validators(ctx)
}

// identityStores opens an empty store of each backend.
func identityStores(t *testing.T) map[string]func(t *testing.T) *store.DB {
	return map[string]func(t *testing.T) *store.DB{
		"sqlite": func(t *testing.T) *store.DB {
			return openStore(t, "sqlite:"+filepath.Join(t.TempDir(), "chain.db"))
		},
		"postgres": func(t *testing.T) *store.DB { return openStore(t, rtestutil.PostgresDSN(t)) },
	}
}

func openStore(t *testing.T, dsn string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func dumpOf(t *testing.T, db *store.DB) string {
	t.Helper()
	var b bytes.Buffer
	if err := db.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func readyReason(p *Pipeline) (string, string) {
	var nr *NotReadyError
	if err := p.Ready(); errors.As(err, &nr) {
		return nr.Reason, nr.Message
	} else if err != nil {
		return "?", err.Error()
	}
	return "", ""
}

type runningPipeline struct {
	p    *Pipeline
	reg  *prometheus.Registry
	logs *rtestutil.SyncBuffer
	done chan error
	stop context.CancelFunc
}

func startOn(t *testing.T, cfg Config, src Source, db *store.DB) *runningPipeline {
	t.Helper()
	r := &runningPipeline{reg: prometheus.NewRegistry(), logs: &rtestutil.SyncBuffer{}, done: make(chan error, 1)}
	logger := slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	p, err := New(cfg, src, db, logger, r.reg)
	if err != nil {
		t.Fatal(err)
	}
	r.p = p
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go func() { r.done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-r.done; err != nil {
			t.Logf("Run: %v", err)
		}
	})
	return r
}

// TestChainResetNeverMixes: the indexer follows a chain to height 40; the node is replaced by
// a new chain with the same chain id (a reset, a re-genesis, an RPC URL repointed at another
// network) at height 10, which then grows past the old height. Not one block of the new chain
// may be stored; the pipeline keeps running (the API keeps serving what it holds), readiness
// says CHAIN_MISMATCH naming both hashes, one ERROR line says so, the metric is 1. A restart
// on the same store finds the mismatch at once and writes nothing either.
func TestChainResetNeverMixes(t *testing.T) {
	cfg := fastConfig()
	cfg.ChainRecheck = 20 * time.Millisecond
	for name, open := range identityStores(t) {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			old := newFakeChain(40, 0)
			src := newSwapSource(old)
			r := startOn(t, cfg, src, db)
			waitUntil(t, "the old chain indexed", 10*time.Second, func() bool {
				h, _ := db.IndexedHeight(context.Background())
				return h == 40 && r.p.Ready() == nil
			})
			before := dumpOf(t, db)

			reset := newFakeChain(10, 0)
			reset.seed = 7
			src.cur.Store(reset)
			waitUntil(t, "CHAIN_MISMATCH while the new chain is below the old height", 10*time.Second, func() bool {
				reason, _ := readyReason(r.p)
				return reason == NotReadyChainMismatch
			})
			reset.head.Store(60)
			waitUntil(t, "the new chain read past the old height", 10*time.Second, func() bool {
				reason, msg := readyReason(r.p)
				return reason == NotReadyChainMismatch && r.p.target.Load() >= 60 && strings.Contains(msg, "block 40")
			})
			time.Sleep(100 * time.Millisecond) // polls at the new chain's tip: nothing may come of them

			if h, _ := db.IndexedHeight(context.Background()); h != 40 {
				t.Fatalf("indexed height %d after the reset, want 40", h)
			}
			if after := dumpOf(t, db); after != before {
				t.Fatal("the store changed after the chain was reset")
			}
			_, msg := readyReason(r.p)
			for _, want := range []string{store.HashHex(old.hash(40)), store.HashHex(reset.hash(40))} {
				if !strings.Contains(msg, want) {
					t.Errorf("readiness message %q lacks %q", msg, want)
				}
			}
			if n := strings.Count(r.logs.String(), "level=ERROR"); n != 1 || !strings.Contains(r.logs.String(), "chain mismatch") {
				t.Errorf("%d ERROR lines, want one naming the mismatch:\n%s", n, r.logs.String())
			}
			// The store says it too, for the API replicas: the same reason and message.
			waitUntil(t, "the mismatch recorded in the store", 5*time.Second, func() bool {
				st, err := db.ChainState(context.Background())
				_, now := readyReason(r.p)
				return err == nil && st.Fault == store.FaultChainMismatch && st.Message == now
			})
			if st, _ := db.ChainState(context.Background()); st.StoredHeight != 40 || !bytes.Equal(st.StoredHash, old.hash(40)) ||
				!bytes.Equal(st.NodeHash, reset.hash(40)) || st.Epoch != 0 {
				t.Errorf("recorded chain state %+v", st)
			}
			if v := gaugeValue(r.p.m.chainMismatch); v != 1 {
				t.Errorf("rollgate_ingest_chain_mismatch = %v, want 1", v)
			}
			select {
			case err := <-r.done:
				t.Fatalf("Run returned on a mismatch (%v): the API must keep serving", err)
			default:
			}
			r.stop()
			if err := <-r.done; err != nil {
				t.Logf("Run: %v", err)
			}
			r.done <- nil // for the cleanup

			// A restart on the same store, the node past the old height: halted before any write.
			r2 := startOn(t, cfg, src, db)
			waitUntil(t, "CHAIN_MISMATCH after a restart", 10*time.Second, func() bool {
				reason, _ := readyReason(r2.p)
				return reason == NotReadyChainMismatch
			})
			_, msg = readyReason(r2.p)
			if !strings.Contains(msg, store.HashHex(old.hash(40))) || !strings.Contains(msg, store.HashHex(reset.hash(40))) {
				t.Errorf("restart: readiness message %q does not name both hashes of block 40", msg)
			}
			time.Sleep(100 * time.Millisecond)
			if after := dumpOf(t, db); after != before {
				t.Fatal("the store changed after a restart on the reset chain")
			}
		})
	}
}

// replacedMidHeight is a node replaced by another chain while one height is being read: the
// old node serves block at, then dies as its results are asked for; the URL then answers for
// the new chain.
type replacedMidHeight struct {
	*swapSource
	at       int64
	to       *fakeChain
	served   atomic.Bool // the old chain's block at has been served
	replaced atomic.Bool
}

func (s *replacedMidHeight) Block(ctx context.Context, h int64) (*RawBlock, error) {
	b, err := s.swapSource.Block(ctx, h)
	if h == s.at && err == nil && !s.replaced.Load() {
		s.served.Store(true)
	}
	return b, err
}

func (s *replacedMidHeight) BlockResults(ctx context.Context, h int64) ([]TxResult, error) {
	if h == s.at && !s.replaced.Load() {
		for !s.served.Load() { // /block and /block_results are asked at once
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			time.Sleep(time.Millisecond)
		}
		if s.replaced.CompareAndSwap(false, true) {
			s.cur.Store(s.to)
			return nil, errors.New("connection refused (the node is being replaced)")
		}
	}
	return s.swapSource.BlockResults(ctx, h)
}

// TestNodeReplacedMidHeight: the node is replaced by another chain between the block of a
// height and its results. The retry must not complete the old block with the new chain's
// results (the parent hash would still link it to the store): the height is read again whole,
// the store refuses the new chain's block, ingestion halts on CHAIN_MISMATCH at the height
// below, and no result of the new chain is stored.
func TestNodeReplacedMidHeight(t *testing.T) {
	cfg := fastConfig()
	cfg.ChainRecheck = time.Hour // only the store's parent check and the fetch may find the change
	const at = 23                // a height with txs, so with results to tell the chains apart
	for name, open := range identityStores(t) {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			old := newFakeChain(at, 0) // at is the old node's head: nothing of it comes after
			reset := newFakeChain(60, 0)
			reset.seed = 7
			src := &replacedMidHeight{swapSource: newSwapSource(old), at: at, to: reset}
			r := startOn(t, cfg, src, db)
			waitUntil(t, "CHAIN_MISMATCH after the replacement", 10*time.Second, func() bool {
				reason, _ := readyReason(r.p)
				return reason == NotReadyChainMismatch
			})
			time.Sleep(100 * time.Millisecond) // retries and rechecks: nothing may come of them
			// The batch holding the refused block is refused whole, so the store may end
			// below at-1; what it holds is the old chain's.
			h, _ := db.IndexedHeight(context.Background())
			if h >= at || h < 1 {
				t.Errorf("indexed height %d, want the old chain's below %d: the height read across the replacement is not stored", h, at)
			}
			if d := dumpOf(t, db); strings.Contains(d, reset.resultsMark()) {
				t.Errorf("the store holds results of the new chain:\n%s", firstLineWith(d, reset.resultsMark()))
			}
			if got, err := db.BlockHash(context.Background(), h); err != nil || !bytes.Equal(got, old.hash(h)) {
				t.Errorf("stored block %d hash %x (%v), want the old chain's %x", h, got, err, old.hash(h))
			}
		})
	}
}

func firstLineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// TestUpstreamBehind: a node restored from an older snapshot (the same chain, behind the
// store) is UPSTREAM_BEHIND, not ready, and nothing is written until it has caught up; then
// ingestion goes on as if nothing happened.
func TestUpstreamBehind(t *testing.T) {
	db := identityStores(t)["sqlite"](t)
	c := newFakeChain(40, 0)
	r := startOn(t, fastConfig(), c, db)
	waitUntil(t, "the chain indexed", 10*time.Second, func() bool {
		h, _ := db.IndexedHeight(context.Background())
		return h == 40 && r.p.Ready() == nil
	})
	c.head.Store(20)
	waitUntil(t, "UPSTREAM_BEHIND", 10*time.Second, func() bool {
		reason, _ := readyReason(r.p)
		return reason == NotReadyUpstreamBehind
	})
	if _, msg := readyReason(r.p); !strings.Contains(msg, "20") || !strings.Contains(msg, "40") {
		t.Errorf("readiness message %q does not name both heights", msg)
	}
	c.head.Store(50)
	waitUntil(t, "caught up again", 10*time.Second, func() bool {
		h, _ := db.IndexedHeight(context.Background())
		return h == 50 && r.p.Ready() == nil
	})
	if strings.Contains(r.logs.String(), "level=ERROR") {
		t.Errorf("a node behind the store is no error:\n%s", r.logs.String())
	}
}

func gaugeValue(g prometheus.Gauge) float64 {
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		return -1
	}
	return m.GetGauge().GetValue()
}

// TestChainResetReindexes: with OnChainMismatch "reindex" a reset chain replaces the old one:
// the store drops the old chain's data and ends equal to a fresh run on the new chain.
func TestChainResetReindexes(t *testing.T) {
	cfg := fastConfig()
	cfg.ChainRecheck = 20 * time.Millisecond
	cfg.OnChainMismatch = OnMismatchReindex
	for name, open := range identityStores(t) {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			src := newSwapSource(newFakeChain(40, 0))
			r := startOn(t, cfg, src, db)
			waitUntil(t, "the old chain indexed", 10*time.Second, func() bool {
				h, _ := db.IndexedHeight(context.Background())
				return h == 40
			})
			reset := newFakeChain(10, 0)
			reset.seed = 7
			src.cur.Store(reset)
			waitUntil(t, "the re-index", 10*time.Second, func() bool { return r.p.ChainResets() == 1 })
			reset.head.Store(60)
			waitUntil(t, "the new chain indexed", 10*time.Second, func() bool {
				h, _ := db.IndexedHeight(context.Background())
				return h == 60 && r.p.Ready() == nil
			})

			ref := open(t)
			fresh := cfg
			fresh.StopAtHeight = 60
			runPipeline(t, fresh, reset, ref, nil)
			if got, want := dumpOf(t, db), dumpOf(t, ref); got != want {
				t.Fatalf("the re-indexed store differs from a fresh run on the new chain:\n%s", firstDiffLine(want, got))
			}
			if n := strings.Count(r.logs.String(), "level=ERROR"); n != 1 {
				t.Errorf("%d ERROR lines, want the mismatch's one:\n%s", n, r.logs.String())
			}
			if st, err := db.ChainState(context.Background()); err != nil || st.Epoch != 1 || st.Fault != "" || st.Message != "" {
				t.Errorf("chain state after the re-index: %+v %v, want epoch 1 without a fault", st, err)
			}
		})
	}
}

func firstDiffLine(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return "want " + w[i] + "\n got " + g[i]
		}
	}
	return "lengths differ"
}

// TestInitialBlockTellsChainsApart: a store started above the chain's initial height (START_
// HEIGHT) records the initial block's hash, so a reset chain whose head is below every stored
// block is still a CHAIN_MISMATCH, not a node merely behind.
func TestInitialBlockTellsChainsApart(t *testing.T) {
	cfg := fastConfig()
	cfg.StartHeight = 20
	cfg.ChainRecheck = 20 * time.Millisecond
	db := identityStores(t)["sqlite"](t)
	old := newFakeChain(40, 0)
	src := newSwapSource(old)
	r := startOn(t, cfg, src, db)
	waitUntil(t, "the old chain indexed from height 20", 10*time.Second, func() bool {
		h, _ := db.IndexedHeight(context.Background())
		return h == 40
	})
	id, ok, err := db.ChainIdentity(context.Background())
	if err != nil || !ok || id.FirstHeight != 20 || id.InitialHeight != 1 || !bytes.Equal(id.InitialHash, old.hash(1)) {
		t.Fatalf("identity %+v %v %v: want first height 20 and the initial block 1", id, ok, err)
	}
	reset := newFakeChain(10, 0)
	reset.seed = 7
	src.cur.Store(reset)
	waitUntil(t, "CHAIN_MISMATCH from the initial block", 10*time.Second, func() bool {
		reason, msg := readyReason(r.p)
		return reason == NotReadyChainMismatch && strings.Contains(msg, store.HashHex(old.hash(1))) && strings.Contains(msg, store.HashHex(reset.hash(1)))
	})
}

// TestBehindJudge: the tolerance of a node below the store, step by step on a made-up clock
// (5 blocks, 10 s): a head a few blocks below for less than the grace is not UPSTREAM_BEHIND,
// one that stays below or is far below is; reaching the store starts the count over.
func TestBehindJudge(t *testing.T) {
	const indexed, blocks, grace = 100, 5, 10 * time.Second
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	steps := []struct {
		head   int64
		at     time.Duration
		behind bool
	}{
		{100, 0, false},                       // at the store
		{99, time.Second, false},              // one below: a stretch starts
		{99, 5 * time.Second, false},          // still within the grace
		{101, 6 * time.Second, false},         // above: the stretch ends
		{99, 7 * time.Second, false},          // a new stretch from 7 s
		{98, 16900 * time.Millisecond, false}, // 9.9 s into it
		{98, 17 * time.Second, true},          // 10 s: stays behind
		{100, 18 * time.Second, false},        // caught up
		{94, 19 * time.Second, true},          // 6 below: far behind at once
		{95, 20 * time.Second, false},         // 5 below, 1 s into the stretch
		{95, 29 * time.Second, true},          // 10 s into it
	}
	var b behindWatch
	for i, s := range steps {
		if got := b.judge(s.head, indexed, t0.Add(s.at), blocks, grace); got != s.behind {
			t.Errorf("step %d: head %d at %v: behind %v, want %v", i, s.head, s.at, got, s.behind)
		}
	}
}

// TestBriefDipIsNotBehind: a node that answers now one block below the store, now at it (a
// load-balanced RPC), keeps the pipeline ready and logs nothing; one that stays below past
// the grace is UPSTREAM_BEHIND, once, and ingestion goes on when it catches up.
func TestBriefDipIsNotBehind(t *testing.T) {
	cfg := fastConfig()
	cfg.BehindGrace = 500 * time.Millisecond
	db := identityStores(t)["sqlite"](t)
	c := newFakeChain(40, 0)
	r := startOn(t, cfg, c, db)
	waitUntil(t, "the chain indexed", 10*time.Second, func() bool {
		h, _ := db.IndexedHeight(context.Background())
		return h == 40 && r.p.Ready() == nil
	})
	for range 10 {
		for _, head := range []int64{39, 40} {
			c.head.Store(head)
			for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
				if reason, msg := readyReason(r.p); reason != "" {
					t.Fatalf("a node one block below for 100 ms: %s %s", reason, msg)
				}
			}
		}
	}
	if strings.Contains(r.logs.String(), "behind the store") {
		t.Errorf("a brief dip was logged:\n%s", r.logs.String())
	}
	c.head.Store(39)
	waitUntil(t, "UPSTREAM_BEHIND past the grace", 5*time.Second, func() bool {
		reason, _ := readyReason(r.p)
		return reason == NotReadyUpstreamBehind
	})
	c.head.Store(45)
	waitUntil(t, "caught up", 10*time.Second, func() bool {
		h, _ := db.IndexedHeight(context.Background())
		return h == 45 && r.p.Ready() == nil
	})
	if n := strings.Count(r.logs.String(), "behind the store"); n != 1 {
		t.Errorf("%d lines about the node behind the store, want 1:\n%s", n, r.logs.String())
	}
}
