package e2e

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	signingv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/signing/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/track"
)

// ibcHookRoutes asks /route for every pair of registry assets and keeps the routes whose last
// ICS-20 arrival converts into minievm's wrapper token in the ibc-hooks memo.
func (n *trackNet) ibcHookRoutes(amount string) []hookRoute {
	return n.routesWhere(amount, func(rt route.Route) bool {
		for _, w := range route.Wraps(n.reg, rt.Operations) {
			if w.Via == route.WrapInIBCHook {
				return true
			}
		}
		return false
	})
}

// TestIBCHookWrapRoutes drives every devnet route that arrives by IBC into the EVM rollup's
// wrapped 18-decimal token (e.g. the L1's ibc/ voucher of the rollup's INIT → its evm/ INIT):
// /route, /msgs (the last hop names the wrapper as receiver and carries toLocal in its
// ibc-hooks memo), the tx signed and sent through /v2/tx/submit, /v2/tx/status to
// STATE_COMPLETED_SUCCESS; the recipient's balance of the wrapped token, read from the
// rollup, grows by the amount × 10^12.
func TestIBCHookWrapRoutes(t *testing.T) {
	n := startTrackNet(t, "")
	const amount = "2500000"
	routes := n.ibcHookRoutes(amount)
	if len(routes) == 0 {
		t.Fatal("the router offers no route into a wrapper token by IBC on the devnet")
	}
	sources := map[string]bool{}
	for i, hr := range routes {
		name := fmt.Sprintf("%s_%s_to_%s_%s", hr.src, hr.srcDenom, hr.dst, hr.dstDenom)
		name = strings.NewReplacer("/", "_", "-devnet-1", "").Replace(name)
		t.Run(name, func(t *testing.T) {
			n.t = t
			n.ibcHookRoute(hr, 0, recipientBase+120+i)
			sources[hr.src+" "+hr.srcDenom] = true
		})
		n.t = t
	}
	// Both kinds the task names: an L1 voucher of the rollup's coin, and the rollup's own l2/ coin.
	var l1Voucher, rollupL2 bool
	for s := range sources {
		l1Voucher = l1Voucher || strings.HasPrefix(s, l1ID+" ibc/")
		rollupL2 = rollupL2 || strings.HasPrefix(s, evmID+" l2/")
	}
	if !l1Voucher {
		t.Errorf("no completed route from an L1 ibc/ voucher (sources %v)", sources)
	}
	if !rollupL2 {
		t.Errorf("no completed route from an %s l2/ coin into its wrapper token (sources %v)", evmID, sources)
	}
}

func (n *trackNet) ibcHookRoute(hr hookRoute, signer, recipient int) {
	t := n.t
	rt := hr.rt
	var wrap route.WrapStep
	for _, w := range route.Wraps(n.reg, rt.Operations) {
		if w.Via == route.WrapInIBCHook {
			wrap = w
		}
	}
	dest := n.tn.addr(t, rt.DestAssetChainID, recipient)
	addrs := make([]string, len(rt.RequiredChainAddresses))
	for i, c := range rt.RequiredChainAddresses {
		addrs[i] = n.tn.addr(t, c, signer)
	}
	addrs[len(addrs)-1] = dest
	n.fund(rt.SourceAssetChainID, rt.SourceAssetDenom, signer, mustInt(t, rt.AmountIn))
	st, body := n.post("/v2/fungible/msgs", map[string]any{"address_list": addrs, "amount_in": rt.AmountIn, "amount_out": rt.AmountOut,
		"source_asset_chain_id": rt.SourceAssetChainID, "source_asset_denom": rt.SourceAssetDenom,
		"dest_asset_chain_id": rt.DestAssetChainID, "dest_asset_denom": rt.DestAssetDenom,
		"slippage_tolerance_percent": "1", "operations": rt.Operations})
	if st != http.StatusOK {
		t.Fatalf("msgs: %d %s", st, body)
	}
	var mr msgs.Response
	if err := json.Unmarshal(body, &mr); err != nil || len(mr.Txs) != 1 || mr.Txs[0].CosmosTx == nil || len(mr.Txs[0].CosmosTx.Msgs) != 1 {
		t.Fatalf("msgs answer (one cosmos tx of one MsgTransfer expected): %v %s", err, body)
	}
	ctx := mr.Txs[0].CosmosTx
	pm := n.decode(ctx.Msgs)
	mt, ok := pm[0].(*transferv1.MsgTransfer)
	if !ok {
		t.Fatalf("source message %T", pm[0])
	}
	// The wrapper is the last hop's receiver and its memo's contract_addr (minievm's
	// validateReceiver); here only its presence is checked, the chain checks the rest.
	if !strings.Contains(mt.Memo, `{"evm":{"message":{"contract_addr":"`+wrap.Contract) && !strings.Contains(strings.ToLower(mt.Memo), strings.ToLower(`{"evm":{"message":{"contract_addr":"`+wrap.Contract)) {
		t.Fatalf("memo %s has no ibc-hooks call of the wrapper %s", mt.Memo, wrap.Contract)
	}
	before := n.balance(rt.DestAssetChainID, dest, rt.DestAssetDenom)
	n.mark()
	hash := n.submit(ctx.ChainID, n.sign(ctx.ChainID, signer, pm, signingv1beta1.SignMode_SIGN_MODE_DIRECT, 2_000_000))
	s, _ := n.follow(ctx.ChainID, hash, terminal)
	if s.State != track.StateCompletedSuccess {
		b, _ := json.Marshal(s)
		t.Fatalf("state %s: %s\n%s", s.State, b, n.events())
	}
	want := new(big.Int).Mul(mustInt(t, rt.AmountIn), new(big.Int).Exp(big.NewInt(10), big.NewInt(12), nil))
	if rt.AmountOut != want.String() {
		t.Errorf("route amount_out %s, want %s", rt.AmountOut, want)
	}
	if got := new(big.Int).Sub(n.balance(rt.DestAssetChainID, dest, rt.DestAssetDenom), before); got.Cmp(want) != 0 {
		t.Fatalf("%s received %s %s, want %s\n%s", dest, got, rt.DestAssetDenom, want, n.events())
	}
	t.Logf("%s %s → %s %s: %s arrived (%d ops)", rt.SourceAssetChainID, rt.SourceAssetDenom, rt.DestAssetChainID, rt.DestAssetDenom, want, len(rt.Operations))
}

func mustInt(t *testing.T, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("amount %q", s)
	}
	return v
}

// fund gives signer at least amount of denom on chainID, through the router itself: a
// single-transaction route from the L1's uinit or from a rollup's l2/ coin the signer holds
// (funded first from uinit), broadcast directly (only the tested route goes through
// /v2/tx/submit and its golden).
func (n *trackNet) fund(chainID, denom string, signer int, amount *big.Int) {
	t := n.t
	t.Helper()
	self := n.tn.addr(t, chainID, signer)
	if n.balance(chainID, self, denom).Cmp(amount) >= 0 {
		return
	}
	type coin struct{ chain, denom string }
	from := []coin{{l1ID, "uinit"}}
	if chainID != l1ID || denom != "uinit" {
		for _, c := range n.reg.Chains {
			for _, a := range c.Assets {
				if strings.HasPrefix(a.Denom, "l2/") && !(c.ID == chainID && a.Denom == denom) {
					from = append(from, coin{c.ID, a.Denom})
				}
			}
		}
	}
	for _, f := range from {
		st, body := n.post("/v2/fungible/route", map[string]any{"amount_in": amount.String(), "source_asset_chain_id": f.chain,
			"source_asset_denom": f.denom, "dest_asset_chain_id": chainID, "dest_asset_denom": denom})
		var rt route.Route
		if st != http.StatusOK || json.Unmarshal(body, &rt) != nil || rt.TxsRequired != 1 || rt.RequiredOPHook || rt.AmountOut != amount.String() {
			continue
		}
		if f.chain != l1ID || f.denom != "uinit" {
			n.fund(f.chain, f.denom, signer, amount)
		}
		addrs := make([]string, len(rt.RequiredChainAddresses))
		for i, c := range rt.RequiredChainAddresses {
			addrs[i] = n.tn.addr(t, c, signer)
		}
		st, body = n.post("/v2/fungible/msgs", map[string]any{"address_list": addrs, "amount_in": rt.AmountIn, "amount_out": rt.AmountOut,
			"source_asset_chain_id": f.chain, "source_asset_denom": f.denom, "dest_asset_chain_id": chainID, "dest_asset_denom": denom,
			"slippage_tolerance_percent": "1", "operations": rt.Operations})
		var mr msgs.Response
		if err := json.Unmarshal(body, &mr); err != nil || st != http.StatusOK || len(mr.Txs) != 1 || mr.Txs[0].CosmosTx == nil {
			t.Fatalf("fund %s on %s: msgs %d %s", denom, chainID, st, body)
		}
		ctx := mr.Txs[0].CosmosTx
		before := n.balance(chainID, self, denom)
		n.mark()
		n.broadcast(ctx.ChainID, n.sign(ctx.ChainID, signer, n.decode(ctx.Msgs), signingv1beta1.SignMode_SIGN_MODE_DIRECT, 2_000_000))
		n.waitFor(chainID, self, denom, before, amount)
		return
	}
	t.Fatalf("no single-transaction route funds %s %s on %s", amount, denom, chainID)
}

// TestIBCHookWrapFailureRefunds: an arrival whose hook fails (toLocal of a denom the
// intermediary did not receive, so the wrapper pulls nothing it may) is acknowledged with an
// error, as minievm acknowledges any hook failure, and the coin is refunded on the source;
// the recipient gets nothing.
func TestIBCHookWrapFailureRefunds(t *testing.T) {
	n := startTrackNet(t, "")
	const amount = "1200000"
	routes := n.ibcHookRoutes(amount)
	var hr *hookRoute
	for i := range routes {
		if routes[i].src == l1ID && len(routes[i].rt.Operations) == 1 {
			hr = &routes[i]
		}
	}
	if hr == nil {
		t.Fatal("no one-hop route from the L1 into the wrapper token")
	}
	const signer = 0
	n.fund(l1ID, hr.srcDenom, signer, mustInt(t, amount))
	var wrap route.WrapStep
	for _, w := range route.Wraps(n.reg, hr.rt.Operations) {
		wrap = w
	}
	dest := n.tn.addr(t, evmID, recipientBase+150)
	// The memo /msgs builds, with another remote denom in toLocal.
	addrs := []string{n.tn.addr(t, l1ID, signer), dest}
	st, body := n.post("/v2/fungible/msgs", map[string]any{"address_list": addrs, "amount_in": amount, "amount_out": hr.rt.AmountOut,
		"source_asset_chain_id": l1ID, "source_asset_denom": hr.srcDenom, "dest_asset_chain_id": evmID, "dest_asset_denom": hr.dstDenom,
		"operations": hr.rt.Operations})
	var mr msgs.Response
	if err := json.Unmarshal(body, &mr); err != nil || st != http.StatusOK || len(mr.Txs) != 1 {
		t.Fatalf("msgs: %d %s", st, body)
	}
	m := n.decode(mr.Txs[0].CosmosTx.Msgs)[0].(*transferv1.MsgTransfer)
	if !strings.Contains(m.Memo, hex.EncodeToString([]byte(wrap.RemoteDenom))) {
		t.Fatalf("memo %s does not name %s", m.Memo, wrap.RemoteDenom)
	}
	m.Memo = strings.Replace(m.Memo, hex.EncodeToString([]byte(wrap.RemoteDenom)), hex.EncodeToString([]byte("l2/"+strings.Repeat("0", len(wrap.RemoteDenom)-3))), 1)
	before := n.balance(l1ID, addrs[0], hr.srcDenom)
	defer n.refunded(l1ID, signer, hr.srcDenom, before)
	n.mark()
	hash := n.submit(l1ID, n.sign(l1ID, signer, []proto.Message{m}, signingv1beta1.SignMode_SIGN_MODE_DIRECT, 2_000_000))
	s, _ := n.follow(l1ID, hash, terminal)
	if s.State != track.StateCompletedError || s.Error == nil || !strings.Contains(s.Error.Message, "hook") {
		b, _ := json.Marshal(s)
		t.Fatalf("state %s: %s\n%s", s.State, b, n.events())
	}
	if got := n.balance(evmID, dest, hr.dstDenom); got.Sign() != 0 {
		t.Fatalf("recipient holds %s %s after a failed hook", got, hr.dstDenom)
	}
}
