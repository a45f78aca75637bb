package devnet_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
)

// TestDeterminism: two networks with the same seed and genesis time serve byte-identical
// blocks, block results and Ethereum blocks; another seed gives other blocks.
func TestDeterminism(t *testing.T) {
	const n = 15
	a := startNet(t, 21, n)
	b := startNet(t, 21, n)
	c := startNet(t, 22, n)
	differs := false
	for _, ch := range a.Chains() {
		id := ch.Spec.ChainID
		ea, eb, ec := a.Endpoints()[id], b.Endpoints()[id], c.Endpoints()[id]
		for h := 1; h <= n+1; h++ {
			for _, path := range []string{"/block?height=%d", "/block_results?height=%d"} {
				_, ba := get(t, ea.RPC+fmt.Sprintf(path, h))
				_, bb := get(t, eb.RPC+fmt.Sprintf(path, h))
				if !bytes.Equal(ba, bb) {
					t.Fatalf("%s %s differs at height %d", id, path, h)
				}
				_, bc := get(t, ec.RPC+fmt.Sprintf(path, h))
				differs = differs || !bytes.Equal(ba, bc)
			}
			_, ra := get(t, ea.REST+fmt.Sprintf("/cosmos/tx/v1beta1/txs/block/%d", h))
			_, rb := get(t, eb.REST+fmt.Sprintf("/cosmos/tx/v1beta1/txs/block/%d", h))
			if !bytes.Equal(ra, rb) {
				t.Fatalf("%s REST txs differ at height %d", id, h)
			}
			if ea.JSONRPC != "" {
				for _, m := range []string{"eth_getBlockByNumber", "eth_getBlockReceipts", "debug_traceBlockByNumber"} {
					params := []any{fmt.Sprintf("0x%x", h)}
					switch m {
					case "eth_getBlockByNumber":
						params = append(params, true)
					case "debug_traceBlockByNumber":
						params = append(params, map[string]string{"tracer": "callTracer"})
					}
					_, ja := post(t, ea.JSONRPC, rpcBody(m, params...))
					_, jb := post(t, eb.JSONRPC, rpcBody(m, params...))
					if !bytes.Equal(ja, jb) {
						t.Fatalf("%s %s differs at height %d", id, m, h)
					}
				}
			}
		}
	}
	if !differs {
		t.Fatal("another seed produced the same chain")
	}
}

// TestRegistryAndEndpoints: the registry directory and endpoints.json (written by Start into
// the data dir) list every chain and URL.
func TestRegistryAndEndpoints(t *testing.T) {
	cfg := standalone()
	cfg.ManualBlocks, cfg.GenesisTime = true, genesis
	cfg.DataDir = t.TempDir()
	net, err := devnet.Start(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	dir := filepath.Join(cfg.DataDir, "registry")
	raw, err := os.ReadFile(filepath.Join(cfg.DataDir, "endpoints.json"))
	if err != nil {
		t.Fatal(err)
	}
	var eps map[string]struct {
		Kind, ChainName, RPC, REST, JSONRPC string
	}
	if err := json.Unmarshal(raw, &eps); err != nil {
		t.Fatal(err)
	}
	type chainJSON struct {
		ChainName    string `json:"chain_name"`
		ChainID      string `json:"chain_id"`
		EVMChainID   uint64 `json:"evm_chain_id"`
		Bech32Prefix string `json:"bech32_prefix"`
		APIs         map[string][]struct {
			Address string `json:"address"`
		} `json:"apis"`
		Fees struct {
			FeeTokens []struct {
				Denom string `json:"denom"`
			} `json:"fee_tokens"`
		} `json:"fees"`
		Metadata map[string]any `json:"metadata"`
	}
	for _, ch := range net.Chains() {
		e, ok := eps[ch.Spec.ChainID]
		if !ok || e.RPC != ch.Endpoints.RPC || e.REST != ch.Endpoints.REST {
			t.Fatalf("endpoints.json for %s: %+v", ch.Spec.ChainID, e)
		}
		b, err := os.ReadFile(filepath.Join(dir, ch.Endpoints.ChainName, "chain.json"))
		if err != nil {
			t.Fatal(err)
		}
		var cj chainJSON
		if err := json.Unmarshal(b, &cj); err != nil {
			t.Fatal(err)
		}
		if cj.ChainID != ch.Spec.ChainID || cj.APIs["rpc"][0].Address != ch.Endpoints.RPC || cj.APIs["rest"][0].Address != ch.Endpoints.REST ||
			cj.Bech32Prefix != "init" || len(cj.Fees.FeeTokens) != 1 {
			t.Fatalf("chain.json of %s: %s", ch.Spec.ChainID, b)
		}
		switch ch.Spec.Kind {
		case devnet.KindEVM:
			if cj.EVMChainID == 0 || cj.APIs["json-rpc"][0].Address != ch.Endpoints.JSONRPC {
				t.Fatalf("evm chain.json: %s", b)
			}
		case devnet.KindL1:
			if cj.Metadata["is_l1"] != true {
				t.Fatalf("l1 chain.json: %s", b)
			}
		default:
			if cj.Metadata["minitia"] == nil {
				t.Fatalf("rollup chain.json: %s", b)
			}
		}
		var al struct {
			ChainName string `json:"chain_name"`
			Assets    []struct {
				Base string `json:"base"`
			} `json:"assets"`
		}
		b, err = os.ReadFile(filepath.Join(dir, ch.Endpoints.ChainName, "assetlist.json"))
		if err != nil || json.Unmarshal(b, &al) != nil || al.ChainName != cj.ChainName || len(al.Assets) == 0 {
			t.Fatalf("assetlist of %s: %v %s", ch.Spec.ChainID, err, b)
		}
	}
}
