package api

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/httpapi/httpapitest"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
)

// anyContract answers every op-hook lookup: the junk test is about bad input, with the chains
// up.
type anyContract struct{}

func (anyContract) ContractByDenom(context.Context, *registry.Chain, string) (string, error) {
	return bridgedERC20, nil
}

// TestJunkRequests: 10,000 junk requests (httpapitest.Junk) to the router over real HTTP, as
// `rollgate router` serves it (net/http), with its tracker and fakes of the chains: no 5xx,
// and every error is the JSON error envelope of at most 2 KiB.
func TestJunkRequests(t *testing.T) {
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Now:          func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		Balances:     fakeBalances{},
		NFTOwners:    fakeNFTs{},
		Contracts:    anyContract{},
		Tracker:      &fakeTracker{},
		Route:        route.Config{LayerZeroFee: map[string]string{eth: "150000000000000"}},
		MaxBodyBytes: 64 << 10,
		Streams:      httpapi.StreamOptions{Heartbeat: 100 * time.Millisecond},
	}
	h := New(cfg, registry.NewLive(reg), nil, prometheus.NewRegistry())
	addr := httpapitest.Serve(t, h)

	var bodies []string
	for _, tc := range routeCases() {
		b, _ := json.Marshal(tc.req)
		bodies = append(bodies, string(b))
	}
	bodies = append(bodies,
		`{"source_address":"`+userInit+`","dest_address":"`+user2Init+`","amount_in":"1","source_asset_chain_id":"`+l1+`","source_asset_denom":"uinit","dest_asset_chain_id":"`+mwas+`","dest_asset_denom":"`+initMoveW+`"}`,
		`{"chains":{"`+l1+`":{"address":"`+userInit+`","denoms":["uinit"]}}}`,
		`{"tx_hash":"`+knownHash+`","chain_id":"`+l1+`"}`,
		`{"requests":[{"source_asset_chain_id":"`+l1+`","source_asset_denom":"uinit","dest_chain_id":"`+mwas+`"}]}`,
		`{"assets":[{"denom":"uinit","chain_id":"`+l1+`"}]}`,
		`{"source_asset_chain_id":"`+l1+`","source_asset_denom":"uinit","dest_chain_id":"`+mwas+`"}`,
		`{"from_address":"`+userInit+`","from_chain_id":"`+mevm+`","to_address":"`+user2Init+`","to_chain_id":"`+mevm+`","collection_address":"`+evmNFT+`","token_ids":["7"],"object_addresses":[""]}`,
	)
	chains := []string{l1, mmov, mwas, mevm}
	j := httpapitest.Junk{
		Routes:  append((&server{}).routes(), httpapitest.Operational...),
		Samples: map[string][]string{"file": {"index.html"}},
		Params: map[string][]string{
			"chain_id": chains, "chain_ids": chains, "tx_hash": {knownHash}, "source_chain_id": chains, "dest_chain_id": chains,
			"include_evm_assets": {"true"}, "only_testnets": {"false"}, "native_only": {"true"}, "include_evm": {"true"},
			"allow_multi_tx": {"true"},
		},
		Bodies: bodies,
		Seed:   30,
	}
	tally := httpapitest.Hammer(t, addr, 10000, 4, j.Request)
	t.Logf("router: %v", tally)
	if tally.Requests != 10000 {
		t.Errorf("%v", tally)
	}
}
