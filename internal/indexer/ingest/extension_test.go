package ingest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/store"
)

// TestExtensionNeedsAreStartupErrors: an extension whose source or store lacks what it needs
// stops New, naming the extension and what it needs, instead of running with the feature off.
func TestExtensionNeedsAreStartupErrors(t *testing.T) {
	cases := []struct {
		name string
		ext  Extension
		src  Source
	}{
		{"rich list without genesis", RichList(BankRichList()), newFakeChain(5, 0)},
		{"EVM rich list without JSON-RPC", RichList(EVMRichList()), bankChain{newFakeChain(5, 0)}},
		{"Move rich list without fungible asset metadata", RichList(MoveRichList()), bankChain{newFakeChain(5, 0)}},
		{"NFTs without NFT queries", NFTs(WasmNFTs()), newFakeChain(5, 0)},
		{"EVM txs without JSON-RPC", EVMTxs(), newFakeChain(5, 0)},
		{"internal txs without JSON-RPC", InternalTxs(InternalConfig{}), newFakeChain(5, 0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := fastConfig()
			cfg.Extensions = []Extension{c.ext}
			p, err := New(cfg, c.src, &memWriter{}, nil, nil)
			if err == nil || p != nil {
				t.Fatalf("New started without the extension's needs (err %v)", err)
			}
			if want := "extension " + c.ext.Name() + " needs " + c.ext.Needs(); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q, want it to say %q", err, want)
			}
		})
	}
	// With what it needs, it starts: a Wasm rich list on a source with genesis and balances
	// and a store that keeps the list.
	db, err := store.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "x.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := fastConfig()
	cfg.Extensions = []Extension{RichList(BankRichList())}
	if _, err := New(cfg, bankChain{newFakeChain(5, 0)}, db, nil, nil); err != nil {
		t.Fatalf("rich list with its needs met: %v", err)
	}
}
