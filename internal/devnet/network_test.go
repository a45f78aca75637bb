package devnet

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge"
)

// TestDeterminism: two networks with the same seed and genesis time, driven block by block,
// serve byte-identical /block and /block_results on every chain, bridge traffic and relayer
// included; a different seed does not.
func TestDeterminism(t *testing.T) {
	const blocks = 30
	busy := func(c *Config) { c.BridgeTraffic = 0.5 }
	a, b := startManual(t, 11, busy), startManual(t, 11, busy)
	other := startManual(t, 12, busy)
	for _, n := range []*Network{a, b, other} {
		produce(t, n, blocks)
	}
	if p, q := a.RelayerStats(), b.RelayerStats(); p != q || p.RecvSubmitted == 0 || p.DepositsSubmitted == 0 {
		t.Errorf("relayer stats %+v vs %+v (want equal and non-zero)", p, q)
	}
	differs := 0
	for _, id := range a.ChainIDs() {
		ea, eb, eo := a.Endpoints()[id], b.Endpoints()[id], other.Endpoints()[id]
		for h := 1; h <= blocks+1; h++ {
			for _, route := range []string{"block", "block_results"} {
				q := fmt.Sprintf("/%s?height=%d", route, h)
				x, y := httpGet(t, ea.RPC+q), httpGet(t, eb.RPC+q)
				if !bytes.Equal(x, y) {
					t.Fatalf("%s %s differs:\n%.400s\n%.400s", id, q, x, y)
				}
				if !bytes.Contains(x, []byte(`"result"`)) {
					t.Fatalf("%s %s: %.300s", id, q, x)
				}
				if !bytes.Equal(x, httpGet(t, eo.RPC+q)) {
					differs++
				}
			}
		}
	}
	if differs == 0 {
		t.Error("another seed served the same blocks")
	}
}

// TestTimerMode: without ManualBlocks the chains produce on their timers and the relayer
// steps on its own goroutine; bridge traffic gets acknowledged without any driving.
func TestTimerMode(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Accounts, cfg.BlockInterval, cfg.BridgeTraffic = 5, 3, 40*time.Millisecond, 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n, err := Start(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.ProduceBlock(ctx); err == nil {
		t.Error("ProduceBlock accepted without ManualBlocks")
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if st := n.RelayerStats(); st.AcksSubmitted > 0 && st.DepositsSubmitted > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nothing relayed: %+v", n.RelayerStats())
}

// TestBridgeTrafficSucceeds runs busy bridge traffic next to every VM's own traffic: every
// tx carrying a bridge event or signed by a bot must succeed on every chain, and the relayer
// must end with nothing stuck.
func TestBridgeTrafficSucceeds(t *testing.T) {
	n := startManual(t, 4, func(c *Config) { c.BridgeTraffic = 0.6 })
	produce(t, n, 40)
	bots := map[string]bool{}
	for _, cosmos := range []bool{false, true} {
		rel, ex, err := bridge.BotKeys(4, cosmos)
		if err != nil {
			t.Fatal(err)
		}
		bots[string(rel.Address())], bots[string(ex.Address())] = true, true
	}
	counts, botTxs := map[string]int{}, 0
	for _, id := range n.ChainIDs() {
		c := newClient(t, n, id)
		for _, typ := range []string{"recv_packet", "acknowledge_packet", "finalize_token_deposit", "initiate_token_withdrawal", "send_packet", "initiate_token_deposit"} {
			counts[typ] += len(c.events(2, typ, nil))
		}
		for h := int64(2); h <= c.height(); h++ {
			br, err := c.rpc.BlockResults(context.Background(), h)
			if err != nil {
				t.Fatal(err)
			}
			blk, err := c.rpc.Block(context.Background(), h)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range br.TxsResults {
				bridge := false
				for _, ev := range r.Events {
					bridge = bridge || bridgeEventTypes[ev.Type]
				}
				// a failed tx carries no message events: tell bot txs by their signer
				if tx, err := txcodec.Decode(blk.Block.Data.Txs[i]); err == nil && len(tx.Signers) > 0 && tx.Signers[0].PubKey != nil {
					if bots[string(tx.Signers[0].PubKey.Address())] {
						bridge = true
						botTxs++
					}
				}
				if r.Code != 0 && bridge {
					t.Errorf("%s h%d tx %d: code %d %s: %s", id, h, i, r.Code, r.Codespace, r.Log)
				}
			}
		}
	}
	for _, typ := range []string{"recv_packet", "acknowledge_packet", "finalize_token_deposit", "initiate_token_withdrawal"} {
		if counts[typ] == 0 {
			t.Errorf("no %s in 40 blocks: %v", typ, counts)
		}
	}
	if botTxs == 0 {
		t.Error("no tx signed by the relayer or the executor found")
	}
	t.Logf("bridge events %v, %d bot txs, relayer %+v", counts, botTxs, n.RelayerStats())
}
