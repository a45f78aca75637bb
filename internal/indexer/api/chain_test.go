package api

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// fakeChain is a ChainWatcher the test moves by hand.
type fakeChain struct {
	mu      sync.Mutex
	fault   error
	changed chan struct{}
	resets  int64
}

type reasonErr string

func (r reasonErr) Error() string {
	return "not ready: " + string(r) + " (stored block 9 is AA, the node's block 9 is BB)"
}
func (r reasonErr) ReadyReason() string { return string(r) }

func (c *fakeChain) ChainFault() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fault
}

func (c *fakeChain) ChainFaultChanged() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.changed
}

func (c *fakeChain) ChainResets() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resets
}

func (c *fakeChain) set(fault error, reset bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fault = fault
	if reset {
		c.resets++
	}
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// TestStreamsEndOnChainChange: every open stream ends with an "error" event when the node
// turns out to serve another chain — CHAIN_MISMATCH while ingestion halts, CHAIN_RESET once
// the store was dropped to re-index — and goes on through a node merely behind the store.
func TestStreamsEndOnChainChange(t *testing.T) {
	db, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "idx.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fill(t, db, 3)
	paths := []string{"/indexer/block/v1/blocks/stream", "/indexer/tx/v1/txs/stream"}
	for _, tc := range []struct {
		name   string
		fault  error
		reset  bool
		detail string
	}{
		{"halted", reasonErr("CHAIN_MISMATCH"), false, "CHAIN_MISMATCH"},
		{"re-indexing", reasonErr("CHAIN_RESET"), false, "CHAIN_RESET"},
		{"re-indexed", nil, true, "CHAIN_RESET"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chain := &fakeChain{}
			srv := httptest.NewServer(New(Config{ChainID: "c-1", Chain: chain}, db, nil, nil))
			defer srv.Close()
			var clients []*streamClient
			for _, p := range paths {
				clients = append(clients, openStream(t, srv.URL+p, ""))
			}
			time.Sleep(100 * time.Millisecond) // the streams are at the tip
			chain.set(reasonErr("UPSTREAM_BEHIND"), false)
			time.Sleep(100 * time.Millisecond)
			chain.set(tc.fault, tc.reset)
			for i, c := range clients {
				// A stream that does not end is cut after a few seconds, failing below.
				cut := time.AfterFunc(5*time.Second, func() { c.Resp.Body.Close() })
				evs := c.rest()
				if !cut.Stop() {
					t.Fatalf("%s: the stream did not end when the chain changed", paths[i])
				}
				if len(evs) == 0 {
					t.Fatalf("%s: the stream ended without an event", paths[i])
				}
				last := evs[len(evs)-1]
				if last.Name != "error" || !strings.Contains(string(last.Data), `"`+tc.detail+`"`) {
					t.Errorf("%s: last event %s %s, want an error %s", paths[i], last.Name, last.Data, tc.detail)
				}
				for _, ev := range evs[:len(evs)-1] {
					if ev.Name == "error" {
						t.Errorf("%s: an error before the chain changed: %s", paths[i], ev.Data)
					}
				}
			}
		})
	}
}

// readyErr is a pipeline's readiness error as ingest.NotReadyError renders it.
type readyErr struct{ reason, msg string }

func (e readyErr) Error() string       { return e.msg }
func (e readyErr) ReadyReason() string { return e.reason }

// TestReplicaFollowsChainState: an API on a separate reader of the store (an API replica,
// `--mode api`) learns from the store what the writer found of its node's chain, on both
// backends: /readyz turns CHAIN_MISMATCH with the body the writer's own API gives for the
// same readiness, its open streams end with CHAIN_MISMATCH, it is ready again once the writer
// clears the fault; a re-index (Reset) ends the streams with CHAIN_RESET and drops the pinned
// answers of the old chain from the replica's cache.
func TestReplicaFollowsChainState(t *testing.T) {
	dsns := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "idx.db") },
		"postgres": func(t *testing.T) string { return testutil.PostgresDSN(t) },
	}
	paths := []string{"/indexer/block/v1/blocks/stream", "/indexer/tx/v1/txs/stream"}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			d := dsn(t)
			w, err := store.Open(ctx, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
			fill(t, w, 3)
			r, err := store.OpenReader(ctx, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			srv := httptest.NewServer(NewServing(ctx, Config{ChainID: "c-1", ChainPoll: 50 * time.Millisecond, StreamPoll: 20 * time.Millisecond}, r, nil, nil))
			t.Cleanup(srv.Close) // after the streams' own cleanups: Close waits for their connections
			readyz := func() (int, string) {
				rec, err := http.Get(srv.URL + "/readyz")
				if err != nil {
					t.Fatal(err)
				}
				defer rec.Body.Close()
				b, _ := io.ReadAll(rec.Body)
				return rec.StatusCode, string(b)
			}
			waitReady := func(what string, cond func(code int, body string) bool) (int, string) {
				t.Helper()
				for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					code, body := readyz()
					if cond(code, body) {
						return code, body
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s: /readyz still %d %s", what, code, body)
					}
				}
			}
			waitReady("before", func(code int, _ string) bool { return code == 200 })
			open := func() []*streamClient {
				var cs []*streamClient
				for _, p := range paths {
					cs = append(cs, openStream(t, srv.URL+p, "0"))
				}
				for _, c := range cs {
					c.next(t, 3) // the stored items: the stream is at the tip
				}
				return cs
			}
			ended := func(cs []*streamClient, detail string) {
				t.Helper()
				for i, c := range cs {
					cut := time.AfterFunc(5*time.Second, func() { c.Resp.Body.Close() })
					evs := c.rest()
					if !cut.Stop() {
						t.Fatalf("%s: the replica's stream did not end", paths[i])
					}
					if len(evs) == 0 || evs[len(evs)-1].Name != "error" || !strings.Contains(string(evs[len(evs)-1].Data), `"`+detail+`"`) {
						t.Errorf("%s: events %v, want an error %s last", paths[i], evs, detail)
					}
				}
			}

			cs := open()
			mm := &store.ChainMismatchError{Height: 3, Stored: []byte{0xaa}, Got: []byte{0xbb}, NodeHeight: 3}
			msg := mm.Error() + "; ingestion halted"
			if err := w.SetChainFault(ctx, store.FaultChainMismatch, msg, mm); err != nil {
				t.Fatal(err)
			}
			code, body := waitReady("mismatch", func(code int, _ string) bool { return code == 503 })
			writer := do(New(Config{ChainID: "c-1", Ready: func() error { return readyErr{"CHAIN_MISMATCH", msg} }}, w, nil, nil), "/readyz")
			if code != writer.Code || body != writer.Body.String() {
				t.Errorf("replica /readyz %d %s\nwriter's %d %s", code, body, writer.Code, writer.Body)
			}
			ended(cs, "CHAIN_MISMATCH")
			st, err := r.ChainState(ctx)
			if err != nil || st.StoredHeight != 3 || store.HashHex(st.StoredHash) != "AA" || st.NodeHeight != 3 || store.HashHex(st.NodeHash) != "BB" {
				t.Errorf("stored chain state %+v %v", st, err)
			}

			if err := w.SetChainFault(ctx, "", "", nil); err != nil {
				t.Fatal(err)
			}
			waitReady("cleared", func(code int, _ string) bool { return code == 200 })
			cs = open()
			if rec := do(srv.Config.Handler, "/indexer/block/v1/blocks/2"); rec.Code != 200 {
				t.Fatalf("block 2: %d %s", rec.Code, rec.Body)
			}
			if err := w.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			ended(cs, "CHAIN_RESET")
			if rec := do(srv.Config.Handler, "/indexer/block/v1/blocks/2"); rec.Code != 404 {
				t.Errorf("block 2 of the dropped chain after the re-index: %d %s", rec.Code, rec.Body)
			}
			waitReady("re-indexed", func(code int, _ string) bool { return code == 200 })
		})
	}
}

// reindexingChain is fakeChain with the pipeline's OnReindex (ingest.Pipeline).
type reindexingChain struct {
	fakeChain
	hooks []func()
}

func (c *reindexingChain) OnReindex(f func()) { c.hooks = append(c.hooks, f) }

// TestWriterDropsCacheOnReindex: in the writer's process, the pipeline tells the API when it
// has dropped the store, before it tells anyone else: from then on no pinned answer of the
// dropped chain is served from the cache, even before the re-index is signalled.
func TestWriterDropsCacheOnReindex(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "idx.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fill(t, db, 3)
	chain := &reindexingChain{}
	h := NewServing(ctx, Config{ChainID: "c-1", Chain: chain}, db, nil, nil)
	for range 2 { // the second answer is the cache's
		if rec := do(h, "/indexer/block/v1/blocks/2"); rec.Code != 200 {
			t.Fatalf("block 2: %d %s", rec.Code, rec.Body)
		}
	}
	if len(chain.hooks) != 1 {
		t.Fatalf("%d OnReindex hooks registered, want 1", len(chain.hooks))
	}
	if err := db.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range chain.hooks {
		f()
	}
	if rec := do(h, "/indexer/block/v1/blocks/2"); rec.Code != 404 {
		t.Errorf("block 2 of the dropped chain after the drop: %d %s", rec.Code, rec.Body)
	}
	chain.set(nil, true)
}
