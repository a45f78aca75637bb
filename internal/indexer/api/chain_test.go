package api

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
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
				cut := time.AfterFunc(5*time.Second, func() { c.resp.Body.Close() })
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
