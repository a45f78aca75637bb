package devnet_test

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
)

// TestChainHandle holds the façade's Chain handle to what lies beneath it: URLs as in
// endpoints.json, blocks and accounts as the engine holds them, keys that sign as the keyed
// accounts, a balance table that holds those accounts' genesis funds, and a broadcast that
// runs CheckTx.
func TestChainHandle(t *testing.T) {
	const seed = 11
	n := startNet(t, seed, 5)
	eps := n.Endpoints()
	for _, c := range n.Chains() {
		t.Run(c.ID(), func(t *testing.T) {
			ep := eps[c.ID()]
			if c.RPC() != ep.RPC || c.REST() != ep.REST || c.JSONRPC() != ep.JSONRPC || c.Kind() != ep.Kind {
				t.Errorf("handle %s %s %s %s, endpoints %+v", c.RPC(), c.REST(), c.JSONRPC(), c.Kind(), ep)
			}
			if (c.JSONRPC() != "") != (c.Kind() == devnet.KindEVM) {
				t.Errorf("%s chain with JSON-RPC %q", c.Kind(), c.JSONRPC())
			}
			eng := c.Engine()
			tip := c.Height()
			if tip < 5 || eng.Height() != tip {
				t.Fatalf("height %d, engine %d, want the same, at least 5", tip, eng.Height())
			}
			txs := 0
			for h := int64(1); h <= tip; h++ {
				b, err := c.Block(h)
				if err != nil {
					t.Fatal(err)
				}
				eb, _ := eng.Block(h)
				if b.Height != h || !bytes.Equal(b.Hash, eb.ID.Hash) || len(b.TxHashes) != len(eb.Txs) || len(b.Results) != len(eb.Results) {
					t.Fatalf("block %d: %d %X %d txs %d results, engine %X %d txs %d results", h, b.Height, b.Hash, len(b.TxHashes), len(b.Results), eb.ID.Hash, len(eb.Txs), len(eb.Results))
				}
				for i, tx := range eb.Txs {
					if !bytes.Equal(b.TxHashes[i], sha(tx)) || b.Results[i].Code != eb.Results[i].Code || len(b.Results[i].Events) != len(eb.Results[i].Events) {
						t.Errorf("block %d tx %d differs from the engine's", h, i)
					}
				}
				txs += len(b.TxHashes)
			}
			if txs == 0 {
				t.Errorf("no tx in %d blocks of seeded traffic", tip)
			}
			if _, err := c.Block(tip + 1); err == nil {
				t.Error("a block past the tip read without error")
			}
			accs := c.Accounts()
			if len(accs) == 0 || len(accs) != len(eng.Accounts()) {
				t.Fatalf("%d accounts, engine %d", len(accs), len(eng.Accounts()))
			}
			bal, err := c.Balances(tip)
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range accs {
				k, err := c.Key(i)
				if err != nil {
					t.Fatal(err)
				}
				if got := n.Address(c.ID(), k); got != a.Bech32 {
					t.Errorf("key %d signs as %s, account %s", i, got, a.Bech32)
				}
				if sk, err := devnet.SeedKey(seed, i, c.Spec.CosmosKeys); err != nil || !bytes.Equal(sk.Bytes(), k.Bytes()) {
					t.Errorf("SeedKey(%d) is not the chain's key %d (%v)", i, i, err)
				}
				if bal[c.Spec.FeeDenom][hex.EncodeToString(a.Addr)] == "" {
					t.Errorf("account %d (%s) holds no %s in the balance table", i, a.Bech32, c.Spec.FeeDenom)
				}
			}
			if _, err := c.Key(len(accs)); err == nil {
				t.Error("a key past the keyed accounts")
			}
			if _, code, log := c.Broadcast([]byte("not a tx")); code == 0 || log == "" {
				t.Errorf("a malformed tx passed CheckTx: code %d log %q", code, log)
			}
		})
	}
}
