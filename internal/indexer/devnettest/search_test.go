package devnettest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/testutil/searchtest"
)

// TestSearch: on each devnet rollup, in SQLite and PostgreSQL, one input of each kind gives
// the right hit first and nonsense an empty list; across the three, /all/ finds each rollup's
// tx on that rollup.
func TestSearch(t *testing.T) {
	n := startNet(t, netConfig())
	if err := n.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	// The fee denom of each rollup's genesis, which its rich list keeps.
	fee := map[vmkind.Kind]string{vmkind.EVM: "GAS", vmkind.Move: "umin", vmkind.Wasm: "umin"}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			var fleet []api.FleetChain
			txs := map[string]string{}
			for _, r := range rollups {
				db := openStore(t, be.dsn(t))
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				err := ingestChain(ctx, n.Endpoints()[r.chainID], r, db, tip)
				cancel()
				if err != nil {
					t.Fatalf("ingest %s: %v", r.chainID, err)
				}
				o := profile.Options{InternalTxs: true}
				if ep := n.Endpoints()[r.chainID]; ep.JSONRPC != "" {
					rpc, err := evmrpc.New(ep.JSONRPC)
					if err != nil {
						t.Fatal(err)
					}
					o.EVMRPC = rpc // contracts are told by their code
				}
				feat := profile.For(r.vm()).API(db, o)
				cfg := apiConfig(r, db)
				cfg.Features = feat
				srv := httptest.NewServer(api.New(cfg, db, nil, prometheus.NewRegistry()))
				t.Cleanup(srv.Close)
				cases := searchtest.Cases(t, db, r.chainID, r.vm(), fee[r.vm()])
				if r.vm() == vmkind.EVM {
					cases = append(cases, searchtest.ContractCase(t, db))
				}
				txs[r.chainID] = cases[0].Q
				fleet = append(fleet, api.FleetChain{ID: r.chainID, VMType: r.kind, AccountPrefix: "init", Base: "/" + r.chainID, Ready: true, Reader: db, Features: feat})
				t.Run(r.kind, func(t *testing.T) { searchtest.Run(t, srv.URL, r.chainID, cases) })
			}
			fs := httptest.NewServer(api.NewFleet(api.FleetConfig{Chains: func() []api.FleetChain { return fleet }}, nil, nil))
			t.Cleanup(fs.Close)
			searchtest.RunAll(t, fs.URL, txs)
		})
	}
}
