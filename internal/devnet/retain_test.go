package devnet_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
)

// TestPrunedHeightsOverHTTP: a network that keeps 10 blocks per chain answers heights below
// its base as a pruned node does (CometBFT's "height N is not available", the SDK's "failed to
// load state" on REST and abci_query), reports the base as its earliest block, and keeps
// serving the EVM chain's Ethereum view with the hashes of an unpruned network.
func TestPrunedHeightsOverHTTP(t *testing.T) {
	specs := []devnet.ChainSpec{{ChainID: "evm-retain-1", Kind: devnet.KindEVM}, {ChainID: "wasm-retain-1", Kind: devnet.KindWasm}}
	start := func(retain int) *devnet.Network {
		cfg := standalone()
		cfg.Chains, cfg.Seed, cfg.GenesisTime, cfg.ManualBlocks, cfg.RetainBlocks = specs, 12, genesis, true, retain
		n, err := devnet.Start(t.Context(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		return n
	}
	full, pruned := start(0), start(10)
	ethHash := func(n *devnet.Network, h int64) string {
		e, _ := n.Chain("evm-retain-1")
		_, body := post(t, e.Endpoints.JSONRPC, rpcBody("eth_getBlockByNumber", fmt.Sprintf("0x%x", h), false))
		var r struct {
			Result struct{ Hash, ParentHash string }
		}
		if err := json.Unmarshal(body, &r); err != nil || r.Result.Hash == "" {
			t.Fatalf("eth_getBlockByNumber(%d): %s", h, body)
		}
		return r.Result.Hash
	}
	for i := range 40 {
		for _, n := range []*devnet.Network{full, pruned} {
			if err := n.ProduceBlock(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		if i == 5 {
			ethHash(pruned, 3) // the view caches early blocks, which pruning must then drop
		}
	}
	ch, _ := pruned.Chain("wasm-retain-1")
	base, tip := ch.Engine().Base(), ch.Engine().Height()
	if base <= 1 || tip-base+1 > 10 {
		t.Fatalf("base %d at height %d with 10 retained", base, tip)
	}
	rpc, rest := ch.Endpoints.RPC, ch.Endpoints.REST

	_, body := get(t, fmt.Sprintf("%s/block?height=%d", rpc, base-1))
	if want := fmt.Sprintf("height %d is not available, lowest height is %d", base-1, base); !strings.Contains(string(body), `"data":"`+want+`"`) {
		t.Errorf("/block below the base: %s", body)
	}
	if _, body := get(t, fmt.Sprintf("%s/block?height=%d", rpc, base)); strings.Contains(string(body), `"error"`) {
		t.Errorf("/block at the base: %s", body)
	}
	_, body = get(t, rpc+"/status")
	if !strings.Contains(string(body), fmt.Sprintf(`"earliest_block_height":"%d"`, base)) {
		t.Errorf("/status earliest block: %s", body)
	}

	acc := ch.Engine().Accounts()[0].Bech32
	req, _ := http.NewRequest(http.MethodGet, rest+"/cosmos/bank/v1beta1/balances/"+acc, nil)
	req.Header.Set("x-cosmos-block-height", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var gw struct {
		Code    int
		Message string
	}
	err = json.NewDecoder(resp.Body).Decode(&gw)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusInternalServerError || gw.Code != 2 ||
		gw.Message != fmt.Sprintf("codespace sdk code 18: invalid request: failed to load state at height 1; version does not exist (latest height: %d)", tip) {
		t.Errorf("REST below the base: %d %+v %v", resp.StatusCode, gw, err)
	}

	_, body = get(t, rpc+`/abci_query?path="/cosmos.bank.v1beta1.Query/AllBalances"&height=1`)
	if !strings.Contains(string(body), `"code":18`) || !strings.Contains(string(body), "failed to load state at height 1") {
		t.Errorf("abci_query below the base: %s", body)
	}

	// The EVM view goes on past the pruned blocks with the same hashes.
	e, _ := pruned.Chain("evm-retain-1")
	for h := e.Engine().Base(); h <= e.Engine().Height(); h++ {
		if a, b := ethHash(pruned, h), ethHash(full, h); a != b {
			t.Fatalf("eth block %d: hash %s, unpruned %s", h, a, b)
		}
	}
}
