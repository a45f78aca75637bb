package devnet_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
)

// TestTxSearchOnPrunedChain: once a chain has pruned, tx_search by hash still finds every
// retained tx and other queries search the retained blocks, where the search used to fail
// with "height 1 is not available". InterwovenKit confirms a broadcast by polling cosmjs'
// StargateClient.getTx (packages/interwovenkit-react/src/data/tx.ts,
// waitForTxConfirmationWithClient), which is tx_search "tx.hash='…'", so without this a
// landed tx shows as not confirmed.
func TestTxSearchOnPrunedChain(t *testing.T) {
	cfg := standalone()
	cfg.Chains = []devnet.ChainSpec{{ChainID: "wasm-search-1", Kind: devnet.KindWasm}}
	cfg.Seed, cfg.GenesisTime, cfg.ManualBlocks, cfg.RetainBlocks = 5, genesis, true, 10
	net, err := devnet.Start(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Close() })
	if err := net.ProduceBlocks(t.Context(), 40); err != nil {
		t.Fatal(err)
	}
	c, _ := net.Chain("wasm-search-1")
	base, tip := c.Engine().Base(), c.Height()
	if base <= 1 {
		t.Fatalf("not pruned: base %d", base)
	}
	search := func(q string) (total string, hashes []string, raw []byte) {
		_, body := get(t, c.RPC()+"/tx_search?query="+url.QueryEscape(`"`+q+`"`)+"&per_page=100")
		var r struct {
			Result struct {
				Txs        []struct{ Hash string }
				TotalCount string `json:"total_count"`
			}
			Error json.RawMessage
		}
		if err := json.Unmarshal(body, &r); err != nil || r.Error != nil {
			t.Fatalf("tx_search %q: %s", q, body)
		}
		for _, tx := range r.Result.Txs {
			hashes = append(hashes, tx.Hash)
		}
		return r.Result.TotalCount, hashes, body
	}
	found := 0
	for h := base; h <= tip; h++ {
		b, err := c.Block(h)
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range b.TxHashes {
			hx := strings.ToUpper(hex.EncodeToString(th))
			for _, q := range []string{"tx.hash='" + hx + "'", "tx.hash = '" + strings.ToLower(hx) + "'"} {
				total, hashes, body := search(q)
				if total != "1" || len(hashes) != 1 || hashes[0] != hx {
					t.Errorf("%s in retained block %d: %s", q, h, body)
				}
			}
			found++
		}
	}
	if found == 0 {
		t.Fatal("no tx in the retained blocks")
	}
	total, hashes, body := search(fmt.Sprintf("tx.height>=%d", 1))
	if total != fmt.Sprint(found) || len(hashes) != found {
		t.Errorf("tx.height>=1 on a chain retaining %d txs: %s", found, body)
	}
	if total, _, body := search("tx.hash='" + strings.Repeat("AB", 32) + "'"); total != "0" {
		t.Errorf("unknown hash: %s", body)
	}
	if total, _, body := search("tx.hash='nothex'"); total != "0" {
		t.Errorf("malformed hash: %s", body)
	}
}
