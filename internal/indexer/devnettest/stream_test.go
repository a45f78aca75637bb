package devnettest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/httpapi/sse"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/store"
)

// TestStreamsOnDevnet: on the devnet's EVM rollup, ingested by the production pipeline, the
// block, tx and EVM-tx streams opened from the start replay what the list routes list, then
// deliver the next blocks live as the pipeline writes them, item for item.
func TestStreamsOnDevnet(t *testing.T) {
	r := rollups[0] // evm
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			cfg := netConfig()
			n := startNet(t, cfg)
			ep := n.Endpoints()[r.chainID]
			dsn := b.dsn(t)
			db := openStore(t, dsn)
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			const half = 20
			if err := n.ProduceBlocks(ctx, half); err != nil {
				t.Fatal(err)
			}
			if err := ingestChain(ctx, ep, r, db, half+1); err != nil {
				t.Fatal(err)
			}
			// The API on a read-only handle of its own, as `--mode api`.
			rd, err := store.OpenReader(ctx, dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			cfgAPI := apiConfig(r, rd)
			cfgAPI.StreamPoll = 20 * time.Millisecond
			srv := httptest.NewServer(newAPIWith(cfgAPI, rd))
			defer srv.Close()
			cases := []struct{ stream, list, key string }{
				{"/indexer/block/v1/blocks/stream?from=0", "/indexer/block/v1/blocks", "blocks"},
				{"/indexer/tx/v1/txs/stream?from=0", "/indexer/tx/v1/txs", "txs"},
				{"/indexer/tx/v1/evm-txs/stream?from=0", "/indexer/tx/v1/evm-txs", "txs"},
			}
			type open struct {
				rd   *sse.Reader
				body io.Closer
			}
			var streams []open
			var before []int
			for _, c := range cases {
				resp, err := http.Get(srv.URL + c.stream)
				if err != nil || resp.StatusCode != 200 {
					t.Fatalf("%s: %v %v", c.stream, resp, err)
				}
				defer resp.Body.Close()
				streams = append(streams, open{sse.NewReader(resp.Body), resp.Body})
				before = append(before, len(listAll(t, srv.URL+c.list, c.key)))
			}
			if before[2] == 0 {
				t.Fatal("the devnet's EVM rollup made no EVM tx: nothing to compare")
			}
			// The second half, written while the streams are open.
			if err := n.ProduceBlocks(ctx, half); err != nil {
				t.Fatal(err)
			}
			if err := ingestChain(ctx, ep, r, db, 2*half+1); err != nil {
				t.Fatal(err)
			}
			for i, c := range cases {
				var want []string
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					// The reader caches the indexed height briefly: wait until the list has
					// the second half.
					if want = listAll(t, srv.URL+c.list, c.key); len(want) > before[i] || time.Now().After(deadline) {
						break
					}
				}
				got := make([]string, 0, len(want))
				done := make(chan error, 1)
				go func() {
					for len(got) < len(want) {
						ev, err := streams[i].rd.Next()
						if err != nil {
							done <- err
							return
						}
						got = append(got, string(ev.Data))
					}
					done <- nil
				}()
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("%s: after %d of %d events: %v", c.stream, len(got), len(want), err)
					}
				case <-time.After(15 * time.Second):
					streams[i].body.Close()
					err := <-done
					t.Fatalf("%s: %d of %d events (%v)", c.stream, len(got), len(want), err)
				}
				for j := range want {
					if got[j] != want[j] {
						t.Fatalf("%s: event %d\n%s\nlist item\n%s", c.stream, j, got[j], want[j])
					}
				}
				t.Logf("%s: %d items (%d written while streaming)", c.stream, len(want), len(want)-before[i])
			}
		})
	}
}

// listAll is a list route's items, oldest first, as raw JSON.
func listAll(t *testing.T, url, key string) []string {
	t.Helper()
	resp, err := http.Get(url + "?pagination.reverse=false&pagination.limit=1000")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body[key], &items); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = strings.TrimSpace(string(it))
	}
	return out
}

func newAPIWith(cfg api.Config, rd store.Reader) http.Handler {
	return api.New(cfg, rd, nil, prometheus.NewRegistry())
}
