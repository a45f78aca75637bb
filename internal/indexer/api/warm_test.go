package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// warmWaiter collects the heights each write-through API (by ChainID) has finished warming,
// told through Config.warmed (hook).
type warmWaiter struct {
	mu   sync.Mutex
	cond *sync.Cond
	done map[string]int64
}

func newWarmWaiter() *warmWaiter {
	w := &warmWaiter{done: map[string]int64{}}
	w.cond = sync.NewCond(&w.mu)
	return w
}

func (w *warmWaiter) hook(chainID string, h int64) {
	w.mu.Lock()
	w.done[chainID] = max(w.done[chainID], h)
	w.mu.Unlock()
	w.cond.Broadcast()
}

// wait blocks until the API named chainID has warmed height h (or fails the test after 10 s).
func (w *warmWaiter) wait(t *testing.T, chainID string, h int64) {
	t.Helper()
	timer := time.AfterFunc(10*time.Second, w.cond.Broadcast)
	defer timer.Stop()
	deadline := time.Now().Add(10 * time.Second)
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.done[chainID] < h {
		if time.Now().After(deadline) {
			t.Fatalf("%s never warmed height %d (at %d)", chainID, h, w.done[chainID])
		}
		w.cond.Wait()
	}
}

var missRe = regexp.MustCompile(`(?m)^rollgate_indexer_api_cache_lookups_total\{result="miss"\} (\d+)$`)

// misses is the API's count of cache misses so far.
func misses(t *testing.T, h http.Handler) int {
	t.Helper()
	m := missRe.FindStringSubmatch(do(h, "/metrics").Body.String())
	if m == nil {
		return 0 // no lookup yet
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// polledURLs are the URLs explorers poll once height h is indexed: the head pages, the block,
// its txs and each tx by hash (read from the uncached API, as a client follows them).
func polledURLs(t *testing.T, plain http.Handler, h int64) []string {
	t.Helper()
	var urls []string
	for _, q := range headPages {
		urls = append(urls, "/indexer/block/v1/blocks"+q, "/indexer/tx/v1/txs"+q)
	}
	urls = append(urls, headAnswers...)
	hs := strconv.FormatInt(h, 10)
	byHeight := "/indexer/tx/v1/txs/by_height/" + hs
	urls = append(urls, "/indexer/block/v1/blocks/"+hs, byHeight)
	var body struct {
		Txs []struct {
			TxHash string `json:"txhash"`
		} `json:"txs"`
	}
	if err := json.Unmarshal(do(plain, byHeight).Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	for _, tx := range body.Txs {
		urls = append(urls, "/indexer/tx/v1/txs/"+tx.TxHash)
	}
	return urls
}

// TestWriteThroughNeverStale: with write-through on, on both backends, on the writer and on an
// API replica (a separate api.New over store.OpenReader), each height written one at a time:
//   - once the warm step for the height is over, the first request for every polled URL is a
//     cache hit (no miss counted), and equals the uncached API's answer over the same store
//     handle (body, status, Cache-Control, ETag);
//   - right after a write, while the warmer may be running, every polled URL of the previous
//     and the new height still equals the uncached answer: nothing warmed is ever stale.
func TestWriteThroughNeverStale(t *testing.T) {
	for name, dsn := range freshDSNs() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			d := dsn(t)
			db, err := store.Open(ctx, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			bundles := loadChain(t)
			if err := db.WriteBlocks(ctx, bundles[:30]); err != nil {
				t.Fatal(err)
			}
			replica, err := store.OpenReader(ctx, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer replica.Close()

			waiter := newWarmWaiter()
			wctx, stop := context.WithCancel(ctx)
			defer stop()
			type side struct {
				name           string
				warm, uncached http.Handler
			}
			mk := func(name string, r store.Reader) side {
				cfg := testCfg
				cfg.ChainID, cfg.StreamPoll, cfg.warmed, cfg.WriteThrough = name, 5*time.Millisecond, waiter.hook, true
				plain := testCfg
				plain.CacheBytes = -1
				return side{name, NewServing(wctx, cfg, r, nil, prometheus.NewRegistry()), New(plain, r, nil, prometheus.NewRegistry())}
			}
			sides := []side{mk("writer", db), mk("replica", replica)}
			for _, s := range sides {
				waiter.wait(t, s.name, bundles[29].Block.Height) // started: it reads the height before waiting
			}

			// same checks the served answer against the store's, read just before and just
			// after it: a replica's store handle keeps its indexed height for a moment
			// (store's statecache.go), so while a height arrives the two reads may straddle it.
			// Served must be one of them; an answer older than both is stale.
			same := func(phase string, s side, url string) {
				t.Helper()
				a, b, c := do(s.uncached, url), do(s.warm, url), do(s.uncached, url)
				eq := func(x *httptest.ResponseRecorder) bool {
					return x.Code == b.Code && x.Body.String() == b.Body.String() &&
						x.Header().Get("Cache-Control") == b.Header().Get("Cache-Control") && x.Header().Get("ETag") == b.Header().Get("ETag")
				}
				if !eq(a) && !eq(c) {
					t.Errorf("%s %s %s: served %d %.200s\nstore's %d %.200s", phase, s.name, url, b.Code, b.Body, c.Code, c.Body)
				}
			}
			hits := 0
			for i := 30; i < len(bundles); i++ {
				h := bundles[i].Block.Height
				if err := db.WriteBlocks(ctx, bundles[i:i+1]); err != nil {
					t.Fatal(err)
				}
				if i%2 == 0 {
					// Racing the warmer: whatever it has or has not put yet, never stale.
					for _, s := range sides {
						for _, u := range polledURLs(t, s.uncached, bundles[i-1].Block.Height) {
							same(fmt.Sprintf("racing at %d", h), s, u)
						}
						for _, u := range polledURLs(t, s.uncached, h) {
							same(fmt.Sprintf("racing at %d", h), s, u)
						}
					}
					for _, s := range sides {
						waiter.wait(t, s.name, h)
					}
					continue
				}
				for _, s := range sides {
					waiter.wait(t, s.name, h)
				}
				for _, s := range sides {
					urls := polledURLs(t, s.uncached, h)
					before := misses(t, s.warm)
					for _, u := range urls {
						same(fmt.Sprintf("warmed at %d", h), s, u)
					}
					if n := misses(t, s.warm) - before; n != 0 {
						t.Errorf("%s at %d: %d of %d polled URLs missed the cache on their first request", s.name, h, n, len(urls))
					}
					hits += len(urls)
				}
			}
			if hits == 0 {
				t.Fatal("no warmed answer was checked")
			}
			if !t.Failed() {
				t.Logf("%d first requests after warming, all hits", hits)
			}
		})
	}
}

var keptRe = regexp.MustCompile(`(?m)^rollgate_indexer_api_cache_warms_total\{result="kept"\} (\d+)$`)

// TestWriteThroughSkipsCatchUp: the warm step does nothing when a wake brings more than
// warmSpan heights or the writer's readiness says LAGGING, and warms otherwise (so the two
// skips are what keeps it from working).
func TestWriteThroughSkipsCatchUp(t *testing.T) {
	db := backends(t)["sqlite"](t)
	ctx := context.Background()
	tip, err := db.IndexedHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lag error
	cfg := testCfg
	cfg.Ready = func() error { return lag }
	for _, c := range []struct {
		name     string
		from     int64
		lag      error
		wantKept bool
	}{
		{"catching up", tip - warmSpan - 1, nil, false},
		{"lagging", tip - 1, reasoned{reason: "LAGGING", msg: "30 blocks behind"}, false},
		{"stalled, at the tip", tip - 1, reasoned{reason: "STALLED", msg: "no block"}, true},
		{"at the tip", tip - 1, nil, true},
		{"a few heights", tip - warmSpan, nil, true},
	} {
		lag = c.lag
		s := &server{cfg: cfg, store: db}
		h := New(cfg, db, nil, prometheus.NewRegistry())
		if err := s.warmHeights(ctx, h, c.from, tip); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m := keptRe.FindStringSubmatch(do(h, "/metrics").Body.String())
		if kept := m != nil && m[1] != "0"; kept != c.wantKept {
			t.Errorf("%s: warmed %v (%v), want %v", c.name, kept, m, c.wantKept)
		}
	}
}

// BenchmarkWarmHeight is the write-through's work for one new height at the tip of the bench
// store: listing the height's txs, then computing and caching every polled answer (the head
// pages and answers, the block, its txs, each tx by hash) into an empty cache, as the warmer
// does after each commit. Building the API (and so the empty cache) is not timed.
func BenchmarkWarmHeight(b *testing.B) {
	benchSetup(b)
	ctx := context.Background()
	tip, err := bench.r.IndexedHeight(ctx)
	if err != nil {
		b.Fatal(err)
	}
	s := &server{cfg: Config{ChainID: "bench-1"}, store: bench.r}
	targets, err := s.warmTargets(ctx, tip, tip)
	if err != nil {
		b.Fatal(err)
	}
	// Each step computes every target: none fails, none is skipped.
	if res, err := httpapi.Warm(ctx, New(Config{ChainID: "bench-1"}, bench.r, nil, nil), targets); err != nil || res.Kept != len(targets) {
		b.Fatalf("warm: %+v, %v; want all %d kept", res, err, len(targets))
	}
	b.ReportAllocs()
	b.ReportMetric(float64(len(targets)), "answers/op")
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := New(Config{ChainID: "bench-1"}, bench.r, nil, nil)
		b.StartTimer()
		if err := s.warmHeights(ctx, h, tip-1, tip); err != nil {
			b.Fatal(err)
		}
	}
}
