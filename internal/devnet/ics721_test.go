package devnet_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
)

// ics721Net is an L1 and one rollup of each VM, bridged, with ICS-721 on at a high rate and no
// fungible bridge traffic, after n blocks.
func ics721Net(t testing.TB, seed uint64, n int) *devnet.Network {
	t.Helper()
	cfg := standalone()
	cfg.Bridges, cfg.NFTTraffic = true, 0.5
	cfg.Seed, cfg.GenesisTime, cfg.ManualBlocks = seed, genesis, true
	net, err := devnet.Start(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Close() })
	if err := net.ProduceBlocks(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	return net
}

// TestICS721 runs the L1's ICS-721 traffic until every class token has left (the L1's
// holders run out of tokens) and the relayer has delivered everything: each L1 token is then
// in the escrow of the nft-transfer channel it left by, each rollup received exactly the
// tokens escrowed for its channel (successful non_fungible_token_packet events, no error
// acknowledgement on the L1), and the same seed gives the same blocks on every chain.
func TestICS721(t *testing.T) {
	const blocks = 70
	a := ics721Net(t, 5, blocks)
	l1, _ := a.Chain("initia-devnet-1")
	q, err := l1.Engine().Query(l1.Engine().Height())
	if err != nil {
		t.Fatal(err)
	}
	kv := q.Store(ibc.StoreName)
	escrowed := map[string]map[string]bool{} // L1 channel → class/token
	var channelOf = map[string]string{}      // escrow address → L1 channel
	for _, ch := range []string{"channel-3", "channel-4", "channel-5"} {
		channelOf[string(ibc.NFTEscrowAddress(ibc.NFTPort, ch))] = ch
		escrowed[ch] = map[string]bool{}
	}
	classes := ibc.NFTClasses(kv)
	if len(classes) == 0 {
		t.Fatal("the L1 has no NFT class")
	}
	for _, c := range classes {
		for _, tk := range ibc.NFTTokens(kv, c.ID) {
			ch, ok := channelOf[string(tk.Owner)]
			if !ok {
				t.Errorf("L1 token %s/%s still held by %x after %d blocks", c.ID, tk.ID, tk.Owner, blocks)
				continue
			}
			escrowed[ch][c.ID+"/"+tk.ID] = true
		}
	}
	// Which rollup sits at which L1 nft-transfer channel: the L1 numbers them after its
	// transfer channels, in chain order.
	rollupAt := map[string]string{"channel-3": "minievm-devnet-1", "channel-4": "minimove-devnet-1", "channel-5": "miniwasm-devnet-1"}
	for ch, id := range rollupAt {
		c, _ := a.Chain(id)
		got := map[string]bool{}
		for h := int64(1); h <= c.Engine().Height(); h++ {
			b, err := c.Engine().Block(h)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range b.Results {
				for _, ev := range r.Events {
					if ev.Type != "non_fungible_token_packet" {
						continue
					}
					m := map[string]string{}
					for _, at := range ev.Attributes {
						m[at.Key] = at.Value
					}
					if m["success"] != "true" {
						t.Errorf("%s height %d: receive failed: %s", id, h, m["error"])
						continue
					}
					for _, tok := range strings.Split(m["token_ids"], ",") {
						got[m["class_id"]+"/"+tok] = true
					}
				}
			}
		}
		if len(got) == 0 {
			t.Errorf("%s received no NFT", id)
		}
		if fmt.Sprint(got) != fmt.Sprint(escrowed[ch]) {
			t.Errorf("%s received %v, the L1 escrowed %v on %s", id, got, escrowed[ch], ch)
		}
		t.Logf("%s received %d tokens over %s", id, len(got), ch)
	}
	for h := int64(1); h <= l1.Engine().Height(); h++ {
		b, _ := l1.Engine().Block(h)
		for _, r := range b.Results {
			for _, ev := range r.Events {
				for _, at := range ev.Attributes {
					if ev.Type == "non_fungible_token_packet" && at.Key == "acknowledgement" && !strings.HasPrefix(at.Value, "result:") {
						t.Errorf("L1 height %d: error acknowledgement %s", h, at.Value)
					}
				}
			}
		}
	}

	b := ics721Net(t, 5, blocks)
	for _, c := range a.Chains() {
		d, _ := b.Chain(c.Spec.ChainID)
		for h := int64(1); h <= c.Engine().Height(); h++ {
			x, _ := c.Engine().Block(h)
			y, _ := d.Engine().Block(h)
			if !bytes.Equal(x.ResultAppHash, y.ResultAppHash) || !bytes.Equal(x.ID.Hash, y.ID.Hash) {
				t.Fatalf("%s height %d differs between two runs of seed 5", c.Spec.ChainID, h)
			}
		}
	}
}
