package devnet_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
)

func TestParseChains(t *testing.T) {
	cases := []struct {
		in   string
		want int
		ok   bool
	}{
		{"initia-devnet-1:l1,minievm-devnet-1:evm", 2, true},
		{" a:move , b:wasm, c:cosmos", 3, true},
		{"a:evm,b", 0, false},
		{"a:solana", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		got, err := devnet.ParseChains(c.in)
		if (err == nil) != c.ok || len(got) != c.want {
			t.Errorf("ParseChains(%q) = %v, %v", c.in, got, err)
		}
	}
}

// TestCometJSONRPCForms: JSON-RPC POST with named and positional params, batches, and the
// URI form answer the same block.
func TestCometJSONRPCForms(t *testing.T) {
	net := startNet(t, 4, 3, devnet.ChainSpec{ChainID: "l1-forms-1", Kind: devnet.KindL1})
	e := net.Endpoints()["l1-forms-1"]
	_, uri := get(t, e.RPC+"/block?height=2")
	var u struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(uri, &u); err != nil {
		t.Fatal(err)
	}
	_, named := post(t, e.RPC, map[string]any{"jsonrpc": "2.0", "id": 7, "method": "block", "params": map[string]string{"height": "2"}})
	_, positional := post(t, e.RPC, map[string]any{"jsonrpc": "2.0", "id": 8, "method": "block", "params": []string{"2"}})
	_, batch := post(t, e.RPC, []map[string]any{
		{"jsonrpc": "2.0", "id": 1, "method": "block", "params": map[string]string{"height": "2"}},
		{"jsonrpc": "2.0", "id": 2, "method": "block_results", "params": map[string]string{"height": "99"}},
	})
	for _, b := range [][]byte{named, positional} {
		var r struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(b, &r); err != nil || string(r.Result) != string(u.Result) {
			t.Fatalf("POST form differs: %s", b)
		}
	}
	var rs []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int    `json:"code"`
			Data string `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(batch, &rs); err != nil || len(rs) != 2 {
		t.Fatalf("batch: %s", batch)
	}
	if rs[0].ID != 1 || string(rs[0].Result) != string(u.Result) {
		t.Fatalf("batch element 1: %s", batch)
	}
	want := fmt.Sprintf("height 99 must be less than or equal to the current blockchain height %d", 4)
	if rs[1].Error == nil || rs[1].Error.Code != -32603 || rs[1].Error.Data != want {
		t.Fatalf("batch element 2: %s", batch)
	}
}

// TestL1BlockEvents: the L1 distributes collected fees in BeginBlock, with the trailing
// mode attribute the SDK appends.
func TestL1BlockEvents(t *testing.T) {
	net := startNet(t, 6, 40, devnet.ChainSpec{ChainID: "l1-events-1", Kind: devnet.KindL1})
	ch, _ := net.Chain("l1-events-1")
	seen := 0
	for h := int64(1); h <= ch.Engine().Height(); h++ {
		b, _ := ch.Engine().Block(h)
		for _, ev := range b.FinalizeEvents {
			last := ev.Attributes[len(ev.Attributes)-1]
			if last.Key != "mode" || last.Value != "BeginBlock" {
				t.Fatalf("height %d: event %s ends with %s=%s", h, ev.Type, last.Key, last.Value)
			}
			seen++
		}
	}
	if seen == 0 {
		t.Fatal("no BeginBlock events in 40 blocks")
	}
}

// TestBusyTraffic: a higher traffic bound fills blocks accordingly, and the EVM traffic keeps
// succeeding (only its deliberate reverts fail).
func TestBusyTraffic(t *testing.T) {
	cfg := standalone()
	cfg.Chains = []devnet.ChainSpec{{ChainID: "evm-busy-1", Kind: devnet.KindEVM}}
	cfg.ManualBlocks, cfg.TxsPerBlock, cfg.Accounts, cfg.GenesisTime = true, 30, 20, genesis
	net, err := devnet.Start(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	if err := net.ProduceBlocks(t.Context(), 30); err != nil {
		t.Fatal(err)
	}
	ch, _ := net.Chain("evm-busy-1")
	txs, maxTxs := 0, 0
	fails := map[string]int{}
	for h := int64(1); h <= ch.Engine().Height(); h++ {
		b, _ := ch.Engine().Block(h)
		txs += len(b.Txs)
		maxTxs = max(maxTxs, len(b.Txs))
		for _, r := range b.Results {
			if r.Code != 0 {
				fails[fmt.Sprintf("%s/%d %s", r.Codespace, r.Code, r.Log)]++
			}
		}
	}
	if maxTxs < 10 {
		t.Fatalf("busiest block has %d txs", maxTxs)
	}
	for f, n := range fails {
		if f != "evm/23 failed to execute message; message index: 0: Reverted" {
			t.Errorf("unintended failure (%d×): %s", n, f)
		}
	}
	t.Logf("%d txs, busiest block %d, failures %v", txs, maxTxs, fails)
}
