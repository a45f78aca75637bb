package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/fleet"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestFleetDevnetRegistry: the devnet's three rollups (EVM, Move, Wasm, with their seeded
// traffic), read from the registry directory the devnet writes (the initia-registry layout),
// in one fleet on SQLite and PostgreSQL; each rollup's answers are byte-identical to a
// single-chain deployment of it.
func TestFleetDevnetRegistry(t *testing.T) {
	const blocks = 30
	for _, be := range []struct {
		name          string
		fleet, single func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + t.TempDir() },
			func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "single.db") }},
		{"postgres", func(t *testing.T) string { return testutil.PostgresDSN(t) }, func(t *testing.T) string { return testutil.PostgresDSN(t) }},
	} {
		t.Run(be.name, func(t *testing.T) {
			ids := map[string]string{"minievm-devnet-1": "evm", "minimove-devnet-1": "move", "miniwasm-devnet-1": "wasm"}
			var specs []devnet.ChainSpec
			for id, kind := range ids {
				specs = append(specs, devnet.ChainSpec{ChainID: id, Kind: devnet.Kind(kind)})
			}
			ctx := context.Background()
			n, err := devnet.Start(ctx, devnet.Config{Chains: specs, Seed: 20261127, GenesisTime: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ManualBlocks: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { n.Close() })
			if err := n.ProduceBlocks(ctx, blocks); err != nil {
				t.Fatal(err)
			}
			top := int64(blocks + 1) // genesis is height 1
			reg := t.TempDir()
			if err := n.WriteRegistry(reg); err != nil {
				t.Fatal(err)
			}
			cfg := fleet.Config{Chains: reg, DB: be.fleet(t), Reload: -1, Ingest: fastIngest(),
				API: api.Config{Version: "v0.0.0-fleet", CommitHash: "0000000"}}
			f, srv := startFleet(t, cfg)
			eps := n.Endpoints()
			for id, kind := range ids {
				waitHeight(t, srv.URL+"/"+id, top, 2*time.Minute)
				ref := singleDevnet(t, id, kind, eps[id], be.single(t), top)
				paths := []string{"/status", "/indexer/block/v1/blocks?pagination.limit=100", "/indexer/block/v1/blocks/5",
					"/indexer/block/v1/avg_blocktime", "/indexer/tx/v1/txs?pagination.limit=100", "/indexer/tx/v1/txs/count",
					"/indexer/tx/v1/txs?pagination.limit=3&pagination.reverse=false", "/indexer/nft/v1/collections?pagination.limit=100",
					"/indexer/tx/v1/txs/by_height/10", "/nope"}
				_, _, b := get(t, ref.URL+"/indexer/tx/v1/txs?pagination.limit=20", "")
				var l struct {
					Txs []struct {
						TxHash string `json:"txhash"`
						Tx     struct {
							Body struct {
								Messages []map[string]any `json:"messages"`
							} `json:"body"`
						} `json:"tx"`
					} `json:"txs"`
				}
				_ = json.Unmarshal(b, &l)
				for _, tx := range l.Txs {
					paths = append(paths, "/indexer/tx/v1/txs/"+tx.TxHash)
					for _, m := range tx.Tx.Body.Messages {
						for _, k := range []string{"sender", "from_address"} {
							if a, ok := m[k].(string); ok {
								paths = append(paths, "/indexer/tx/v1/txs/by_account/"+a+"?pagination.limit=50",
									"/indexer/nft/v1/tokens/by_account/"+a)
							}
						}
					}
				}
				if vmkind.Kind(kind) == vmkind.EVM {
					paths = append(paths, "/indexer/tx/v1/evm-txs?pagination.limit=100", "/indexer/tx/v1/evm-internal-txs?pagination.limit=100")
				}
				for _, p := range paths {
					ws, wct, want := get(t, ref.URL+p, "")
					gs, gct, got := get(t, srv.URL+"/"+id+p, "")
					if gs != ws || gct != wct || !bytes.Equal(got, want) {
						t.Errorf("%s %s: %d %s %.300s\nsingle-chain: %d %s %.300s", id, p, gs, gct, got, ws, wct, want)
					}
				}
				if len(l.Txs) == 0 {
					t.Errorf("%s: no txs to compare", id)
				}
				t.Logf("%s (%s): %d requests byte-identical", id, kind, len(paths))
			}
			if got := f.ChainIDs(); len(got) != 3 {
				t.Fatalf("fleet chains %v, want the 3 rollups of the registry", got)
			}
		})
	}
}

// singleDevnet is the single-chain deployment of one devnet rollup, ingested to top.
func singleDevnet(t *testing.T, id, kind string, ep devnet.ChainEndpoints, dsn string, top int64) *httptest.Server {
	t.Helper()
	return singleServer(t, singleSpec{id: id, vm: kind, rpc: ep.RPC, rest: ep.REST, jsonRPC: ep.JSONRPC, top: top,
		richList: true, version: "v0.0.0-fleet", commit: "0000000", within: 2 * time.Minute}, dsn)
}
