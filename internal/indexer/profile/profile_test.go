package profile

import (
	"slices"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
)

// readerStub is a store with both extension readers, for the features' identities.
type readerStub struct {
	store.EVMReader
	store.EVMRangeReader
	store.RichListReader
	store.TransferReader
	id int
}

func names(exts []ingest.Extension) []string {
	out := make([]string, len(exts))
	for i, e := range exts {
		out[i] = e.Name()
	}
	return out
}

// TestProfiles: each kind runs exactly its extensions, in the pipeline's order, and the
// deployment's switches turn the optional ones on and off.
func TestProfiles(t *testing.T) {
	all := Options{RichList: true, InternalTxs: true}
	cases := []struct {
		kind      vmkind.Kind
		profile   []string
		on, off   []string // extensions with all switches on, with all off
		jsonRPC   bool
		internals bool
	}{
		{vmkind.EVM, []string{"rich-list", "nft", "transfers", "evm-txs", "internal-txs"},
			[]string{"rich-list", "nft", "transfers", "evm-txs", "internal-txs"}, []string{"nft", "transfers", "evm-txs"}, true, true},
		{vmkind.Move, []string{"rich-list", "nft", "transfers"}, []string{"rich-list", "nft", "transfers"}, []string{"nft", "transfers"}, false, false},
		{vmkind.Wasm, []string{"rich-list", "nft", "transfers"}, []string{"rich-list", "nft", "transfers"}, []string{"nft", "transfers"}, false, false},
		{"", nil, nil, nil, false, false},
	}
	for _, c := range cases {
		p := For(c.kind)
		if got := p.Names(); !slices.Equal(got, c.profile) {
			t.Errorf("%q: profile %v, want %v", c.kind, got, c.profile)
		}
		if got := names(p.Extensions(all)); !slices.Equal(got, c.on) {
			t.Errorf("%q: switches on: %v, want %v", c.kind, got, c.on)
		}
		if got := names(p.Extensions(Options{})); !slices.Equal(got, c.off) {
			t.Errorf("%q: switches off: %v, want %v", c.kind, got, c.off)
		}
		if p.JSONRPC() != c.jsonRPC || p.Has("internal-txs") != c.internals {
			t.Errorf("%q: JSONRPC %v, internal txs %v", c.kind, p.JSONRPC(), p.Has("internal-txs"))
		}
	}
	if _, err := Parse("cosmos"); err == nil {
		t.Error("Parse(cosmos): no error")
	}
	cfg := Ingest(ingest.Config{VMType: "move", RichList: true}, Options{})
	if got := names(cfg.Extensions); !slices.Equal(got, []string{"rich-list", "nft", "transfers"}) {
		t.Errorf("Ingest takes the rich list's switch from the config: %v", got)
	}
}

// TestAPIFeatures: the API of each kind gets the readers of its extensions, internal txs only
// when they are traced, and 0x holders on EVM only; the rich list is served whatever the
// switch (a list kept by an earlier run stays served, as at rollytics).
func TestAPIFeatures(t *testing.T) {
	r := readerStub{id: 1}
	evm := For(vmkind.EVM).API(r, Options{InternalTxs: true})
	if evm.EVMTxs != r || !evm.InternalTxs || evm.RichList != r || !evm.HexHolders || evm.Transfers != r || !evm.TransfersHex {
		t.Errorf("evm: %+v", evm)
	}
	if evm.Etherscan == nil || evm.Etherscan.Range != r {
		t.Errorf("evm: the Etherscan API reads the EVM store: %+v", evm.Etherscan)
	}
	if f := For(vmkind.EVM).API(r, Options{}); f.EVMTxs != r || f.InternalTxs {
		t.Errorf("evm without internal txs: %+v", f)
	}
	for _, k := range []vmkind.Kind{vmkind.Move, vmkind.Wasm} {
		f := For(k).API(r, Options{RichList: true, InternalTxs: true})
		if f.EVMTxs != nil || f.InternalTxs || f.RichList != r || f.HexHolders || f.Etherscan != nil || f.Transfers != r || f.TransfersHex {
			t.Errorf("%s: %+v", k, f)
		}
		if (f.TransferCoinObject != nil) != (k == vmkind.Move) {
			t.Errorf("%s: a denom names a coin object: %v", k, f.TransferCoinObject != nil)
		}
	}
}

// TestEveryKindHasItsStrategies: every kind has its implementation in each per-kind table of
// the extensions (a kind added to vmkind.All without one fails here, not at a chain's
// start-up), and no table holds a kind vmkind.All does not list.
func TestEveryKindHasItsStrategies(t *testing.T) {
	tables := map[string]map[vmkind.Kind]bool{
		"transferVMs": keys(transferVMs),
		"richListVMs": keys(richListVMs),
		"nftVMs":      keys(nftVMs),
	}
	for name, table := range tables {
		for _, k := range vmkind.All {
			if !table[k] {
				t.Errorf("%s: no implementation for %s", name, k)
			}
		}
		if len(table) != len(vmkind.All) {
			t.Errorf("%s has %d kinds, vmkind.All %d", name, len(table), len(vmkind.All))
		}
	}
	// Each kind's extensions are built from them without a nil implementation.
	for _, k := range vmkind.All {
		for _, e := range For(k).Extensions(Options{RichList: true}) {
			if e == nil {
				t.Errorf("%s: a nil extension", k)
			}
		}
	}
}

// keys are the kinds a table has an implementation for.
func keys[V any](m map[vmkind.Kind]func() V) map[vmkind.Kind]bool {
	out := map[vmkind.Kind]bool{}
	for k, f := range m {
		if f != nil {
			out[k] = true
		}
	}
	return out
}
