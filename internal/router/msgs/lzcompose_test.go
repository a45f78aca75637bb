package msgs

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cosmos/btcutil/bech32"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
)

// devnetRegistry is the registry the devnet writes, as checked in under registry/testdata.
func devnetRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg, err := registry.Load("../registry/testdata/devnet")
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestLayerZeroComposeDeposit: on the devnet registry (whose L1 names an OPinit composer) the
// route Ethereum USDT → minimove is one tx without allow_multi_tx, and its evm_tx is the OFT
// send to the composer carrying the executor's lzCompose option and the compose message
// bridge_id ‖ recipient; without a composer the same operations are refused.
func TestLayerZeroComposeDeposit(t *testing.T) {
	reg := devnetRegistry(t)
	const eth, l1, mmove = "31337", "initia-devnet-1", "minimove-devnet-1"
	composer := reg.Chain(l1).LZOPinitComposer
	if composer == "" {
		t.Fatal("the devnet registry's L1 names no OPinit composer")
	}
	var usdt, l2USDT string
	for _, a := range reg.Chain(eth).Assets {
		if a.LZ != nil && a.TokenContract != "" {
			usdt = a.Denom
			for _, b := range reg.Chain(mmove).Assets {
				if b.OP != nil && b.OP.L1Denom == a.LZ.PeerDenom {
					l2USDT = b.Denom
				}
			}
		}
	}
	if usdt == "" || l2USDT == "" {
		t.Fatalf("USDT %q on %s, %q on %s", usdt, eth, l2USDT, mmove)
	}
	rt, err := route.Build(reg, route.Config{}).Find(route.Request{AmountIn: "1000000", SourceAssetChainID: eth, SourceAssetDenom: usdt,
		DestAssetChainID: mmove, DestAssetDenom: l2USDT})
	if err != nil {
		t.Fatal(err)
	}
	if rt.TxsRequired != 1 || len(rt.Operations) != 2 || rt.Operations[1].TxIndex != 0 {
		t.Fatalf("route: %d txs, %+v", rt.TxsRequired, rt.Operations)
	}
	user := bytes.Repeat([]byte{7}, 20)
	onL1, _ := bech32.EncodeFromBase256("init", user)
	req := Request{SourceAssetChainID: eth, SourceAssetDenom: usdt, DestAssetChainID: mmove, DestAssetDenom: l2USDT,
		AmountIn: rt.AmountIn, AmountOut: rt.AmountOut, AddressList: []string{"0x" + strings.Repeat("07", 20), onL1, onL1}, Operations: rt.Operations}
	resp, err := Builder{Reg: reg}.Build(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Txs) != 1 || resp.Txs[0].EVMTx == nil || len(resp.Txs[0].OperationsIndices) != 2 {
		t.Fatalf("txs %+v", resp.Txs)
	}
	data := resp.Txs[0].EVMTx.Data
	pad := func(h string) string { return strings.Repeat("0", 64-len(h)) + h }
	for what, want := range map[string]string{
		"the composer as the send's recipient":      pad(strings.TrimLeft(strings.TrimPrefix(composer, "0x"), "0")),
		"type-3 options with an lzCompose option":   "0003" + "01" + "0013" + "03" + "0000" + pad("30d40")[32:],
		"the compose message: bridge 2, then to 32": "0000000000000002" + pad(strings.Repeat("07", 20)),
	} {
		if !strings.Contains(data, want) {
			t.Errorf("evm_tx data lacks %s (%s):\n%s", what, want, data)
		}
	}

	reg.Chain(l1).LZOPinitComposer = ""
	_, err = Builder{Reg: reg}.Build(req)
	var re *route.Error
	if !errors.As(err, &re) || re.Reason != ReasonUnsupportedOp {
		t.Fatalf("without a composer: %v", err)
	}
}
