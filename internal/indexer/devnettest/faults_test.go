package devnettest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil/faults"
)

// faultRate is the devnet's share of failing requests in TestFaultTolerance.
const faultRate = 0.25

// TestFaultTolerance ingests the three rollups of the seeded devnet with its fault mode on
// (a quarter of all requests answer 500, hang, lose their connection or get truncated JSON)
// while half the blocks are still to be produced, so the pipeline both catches up and follows
// the tip through faults. Each store must then hold exactly what a fault-free run against the
// same seed stores (byte-identical Dump) and exactly the chain's blocks and txs, once each;
// meanwhile the API of each store, hammered concurrently, must never answer 5xx.
func TestFaultTolerance(t *testing.T) {
	clean := startNet(t, netConfig())
	if err := clean.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			// References first: one fault-free run per rollup into the same backend.
			want := map[string][]byte{}
			for _, r := range rollups {
				db := openStore(t, be.dsn(t))
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				err := ingestChain(ctx, clean.Endpoints()[r.chainID], r, db, tip)
				cancel()
				if err != nil {
					t.Fatalf("%s fault-free ingest: %v", r.kind, err)
				}
				want[r.kind] = dump(t, db)
			}

			cfg := netConfig()
			cfg.Faults, cfg.FaultSeed, cfg.FaultHang = faultRate, seed, 2*time.Second
			cfg.FaultKinds = faults.AllKinds
			faulty := startNet(t, cfg)
			if err := faulty.ProduceBlocks(t.Context(), produced/2); err != nil {
				t.Fatal(err)
			}

			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			var ingesting errgroup.Group
			dbs := map[string]*store.DB{}
			var hammers sync.WaitGroup
			stop := make(chan struct{})
			// However the test ends, no hammer outlives it.
			halt := sync.OnceFunc(func() { close(stop); hammers.Wait() })
			defer halt()
			var requests, bad atomic.Int64
			for _, r := range rollups {
				db := openStore(t, be.dsn(t))
				dbs[r.kind] = db
				ep := faulty.Endpoints()[r.chainID]
				ingesting.Go(func() error {
					// A per-attempt timeout well under the devnet's hang, so a hung call is
					// abandoned and retried instead of stalling its height.
					err := ingestChain(ctx, ep, r, db, tip, httpx.WithTimeout(time.Second), httpx.WithBackoff(10*time.Millisecond, 100*time.Millisecond))
					if err != nil {
						return fmt.Errorf("%s: %w", r.kind, err)
					}
					return nil
				})
				srv := httptest.NewServer(newAPI(r, db))
				t.Cleanup(srv.Close)
				paths := hammerPaths(t, clean, r)
				for w := range 2 {
					hammers.Add(1)
					go func() {
						defer hammers.Done()
						for i := w; ; i++ {
							select {
							case <-stop:
								return
							default:
							}
							requests.Add(1)
							if msg := check(srv.URL + paths[i%len(paths)]); msg != "" && bad.Add(1) <= 10 {
								t.Errorf("%s API under upstream faults: %s", r.kind, msg)
							}
						}
					}()
				}
			}
			// The rest of the chain appears while ingestion runs.
			producing := make(chan error, 1)
			go func() {
				for range produced - produced/2 {
					time.Sleep(10 * time.Millisecond)
					if err := faulty.ProduceBlock(ctx); err != nil {
						producing <- err
						return
					}
				}
				producing <- nil
			}()
			err := ingesting.Wait()
			halt()
			if perr := <-producing; perr != nil {
				t.Fatal(perr)
			}
			if err != nil {
				t.Fatalf("ingest under faults: %v", err)
			}

			counts, passed := faulty.Faults().Counts()
			var failed int64
			for _, k := range faults.AllKinds {
				if counts[k] == 0 {
					t.Errorf("no %s fault was injected", k)
				}
				failed += counts[k]
			}
			share := float64(failed) / float64(failed+passed)
			t.Logf("upstream: %d requests, %.1f%% failed %v; API: %d requests, %d bad", failed+passed, 100*share, counts, requests.Load(), bad.Load())
			if share < 0.2 {
				t.Errorf("only %.1f%% of upstream requests failed", 100*share)
			}
			if requests.Load() == 0 {
				t.Error("the API was not exercised during ingestion")
			}

			for _, r := range rollups {
				dc, _ := faulty.Chain(r.chainID)
				checkAgainstChain(t, dbs[r.kind], dc, tip)
				checkNFTs(t, r.kind, newAPI(r, dbs[r.kind]), dc, tip)
				// The faulty chain's balances; denoms resolved on the clean twin (same seed),
				// whose REST answers every time.
				checkRichList(t, dbs[r.kind], dc, clean.Endpoints()[r.chainID], tip)
				if got := dump(t, dbs[r.kind]); !bytes.Equal(got, want[r.kind]) {
					t.Errorf("%s: the store filled under faults differs from the fault-free one:\n%s", r.kind, firstDiff(got, want[r.kind]))
				}
			}
		})
	}
}

// hammerPaths are requests over every endpoint, with accounts, heights and hashes of the
// chain (taken from the fault-free network, which is the same chain), so they hit rows
// while ingestion writes them.
func hammerPaths(t testing.TB, n *devnet.Network, r rollup) []string {
	t.Helper()
	dc, _ := n.Chain(r.chainID)
	accs := dc.Accounts()
	paths := []string{
		"/status",
		"/indexer/block/v1/blocks",
		"/indexer/block/v1/blocks?pagination.limit=3&pagination.reverse=false&pagination.offset=20",
		"/indexer/block/v1/avg_blocktime",
		"/indexer/tx/v1/txs?pagination.limit=5",
		"/indexer/tx/v1/txs?pagination.limit=5&pagination.offset=40&pagination.reverse=false",
		"/indexer/tx/v1/txs?msgs=cosmos.bank.v1beta1.MsgSend,no.such.Msg&pagination.limit=3",
		"/indexer/tx/v1/txs/by_account/" + accs[0].Bech32 + "?pagination.limit=4",
		"/indexer/tx/v1/txs/by_account/" + accs[1].Bech32 + "?is_signer=true&pagination.offset=2",
		"/indexer/tx/v1/txs/by_account/0x" + hex.EncodeToString(accs[2].Addr) + "?is_signer=false&msgs=cosmos.bank.v1beta1.MsgSend",
	}
	for h := int64(1); h <= tip; h += 7 {
		paths = append(paths, fmt.Sprintf("/indexer/block/v1/blocks/%d", h), fmt.Sprintf("/indexer/tx/v1/txs/by_height/%d", h))
		if b, err := dc.Block(h); err == nil && len(b.TxHashes) > 0 {
			paths = append(paths, "/indexer/tx/v1/txs/"+hex.EncodeToString(b.TxHashes[0][:]))
		}
	}
	return paths
}

// apiClient bounds each API request, so a hung answer fails the test instead of stalling it.
var apiClient = &http.Client{Timeout: 15 * time.Second}

// check requests url and describes what is wrong with the answer: a 5xx, or a body that
// is not JSON.
func check(url string) string {
	resp, err := apiClient.Get(url)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err.Error()
	}
	if resp.StatusCode >= 500 {
		return fmt.Sprintf("%s: %d %s", url, resp.StatusCode, body)
	}
	if !json.Valid(body) {
		return fmt.Sprintf("%s: %d, body not JSON: %q", url, resp.StatusCode, body)
	}
	return ""
}

// firstDiff shows the first differing line of two dumps.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(g), len(w)) {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d\n got: %.400s\nwant: %.400s", i+1, gl, wl)
		}
	}
	return "(same lines)"
}
