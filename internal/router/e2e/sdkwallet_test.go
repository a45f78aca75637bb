package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/track"
)

// The client this file plays is initia.js v2's router client
// (initia-labs/initia.js@a60dc6b:src/bridge/router-client.ts, "IJ:" below) used with the SDK's
// default key: every request carries its headers and its body shape, the messages are signed
// SIGN_MODE_DIRECT (the SDK wallet's default) with the mnemonic's coin-type-60 key, the tx is
// broadcast to the chain and registered with /v2/tx/track, and the outcome is read from
// /v2/tx/status's `state` (IJ:278-282; initia.js has no polling loop of its own and reads
// only `state`, IJ:src/bridge/types.ts:219-262).

// ijPost sends a POST as IJ does: Content-Type application/json and the constant
// InterwovenKit-Version header on every call (IJ:32,284-316).
func (n *trackNet) ijPost(path string, body any) (int, []byte) {
	t := n.t
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, n.router+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("InterwovenKit-Version", "2.4.6")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// ijTransfer runs one transfer as an initia.js v2 wallet: /v2/fungible/route with IJ's body
// (IJ:186-199; undefined fields dropped), /v2/fungible/msgs with the route's operations and
// amounts sent back verbatim and the key's init1 address on every chain of the route
// (IJ:201-219, examples/smart-route.ts:163), the one tx signed SIGN_MODE_DIRECT by sdkUser,
// broadcast, /v2/tx/track (IJ:234-236), then the status followed to a terminal state. It
// returns the route and the terminal status.
func (n *trackNet) ijTransfer(src, srcDenom, dst, dstDenom, amount string, opWithdraw bool) (route.Route, track.StatusResponse) {
	t := n.t
	t.Helper()
	req := map[string]any{"amount_in": amount, "source_asset_chain_id": src, "source_asset_denom": srcDenom,
		"dest_asset_chain_id": dst, "dest_asset_denom": dstDenom}
	if opWithdraw {
		req["is_op_withdraw"] = true
	}
	st, body := n.ijPost("/v2/fungible/route", req)
	var rt route.Route
	if err := json.Unmarshal(body, &rt); err != nil || st != http.StatusOK {
		t.Fatalf("route %s → %s: %d %s", src, dst, st, body)
	}
	if rt.RequiredOPHook || rt.TxsRequired != 1 {
		t.Fatalf("route %s → %s needs a hook or %d txs: %s", src, dst, rt.TxsRequired, body)
	}
	addrs := make([]string, len(rt.RequiredChainAddresses))
	for i, c := range rt.RequiredChainAddresses {
		addrs[i] = n.tn.addr(t, c, sdkUser)
	}
	st, body = n.ijPost("/v2/fungible/msgs", map[string]any{"address_list": addrs, "amount_in": rt.AmountIn, "amount_out": rt.AmountOut,
		"source_asset_chain_id": rt.SourceAssetChainID, "source_asset_denom": rt.SourceAssetDenom,
		"dest_asset_chain_id": rt.DestAssetChainID, "dest_asset_denom": rt.DestAssetDenom,
		"slippage_tolerance_percent": "1", "operations": rt.Operations})
	var mr msgs.Response
	if err := json.Unmarshal(body, &mr); err != nil || st != http.StatusOK || len(mr.Txs) != 1 || mr.Txs[0].CosmosTx == nil {
		t.Fatalf("msgs %s → %s: %d %s", src, dst, st, body)
	}
	ctx := mr.Txs[0].CosmosTx
	if ctx.ChainID != src || ctx.SignerAddress != n.tn.addr(t, src, sdkUser) {
		t.Fatalf("the tx is on %s for %s", ctx.ChainID, ctx.SignerAddress)
	}
	n.mark()
	raw := n.sign(src, sdkUser, n.decode(ctx.Msgs), txcodec.SignModeDirect, 2_000_000)
	n.broadcast(src, raw)
	hash := track.TxHash(raw)
	st, body = n.ijPost("/v2/tx/track", map[string]any{"tx_hash": hash, "chain_id": src})
	if st != http.StatusOK {
		t.Fatalf("track: %d %s", st, body)
	}
	if opWithdraw {
		// The withdrawal finalizes on the L1 once claimed with the executor's proof.
		want, _ := new(big.Int).SetString(rt.AmountOut, 10)
		n.claimWithdrawal(dst, src, dstDenom, n.tn.addr(t, dst, sdkUser), want)
	}
	s, _ := n.follow(src, hash, terminal)
	return rt, s
}

// TestSDKWalletRoundTrip: the wallet initia.js opens from the printed mnemonic with its
// defaults moves INIT from the L1 to every rollup and back (OPinit deposits; OPinit
// withdrawals, IJ's is_op_withdraw quote, claimed on the L1), every transfer to
// STATE_COMPLETED_SUCCESS with the amount the route promised arriving, read from the chains.
func TestSDKWalletRoundTrip(t *testing.T) {
	n := startTrackNet(t, "")
	const amount = "2000000"
	for i, rollup := range []string{evmID, moveID, wasmID} {
		l2 := denom.L2(uint64(i+1), "uinit")
		if n.reg.Chain(rollup).Asset(l2) == nil {
			t.Fatalf("%s lists no %s", rollup, l2)
		}
		user := n.tn.addr(t, rollup, sdkUser)
		if !strings.HasPrefix(user, "init1") || user != n.tn.addr(t, l1ID, sdkUser) {
			t.Fatalf("the SDK key's address on %s is %s", rollup, user)
		}
		for _, leg := range []struct {
			src, srcDenom, dst, dstDenom string
			back                         bool
		}{
			{l1ID, "uinit", rollup, l2, false},
			{rollup, l2, l1ID, "uinit", true},
		} {
			before := n.balance(leg.dst, user, leg.dstDenom)
			rt, s := n.ijTransfer(leg.src, leg.srcDenom, leg.dst, leg.dstDenom, amount, leg.back)
			if s.State != track.StateCompletedSuccess {
				b, _ := json.Marshal(s)
				t.Fatalf("%s → %s: %s\n%s", leg.src, leg.dst, s.State, b)
			}
			got := new(big.Int).Sub(n.balance(leg.dst, user, leg.dstDenom), before)
			if got.String() != rt.AmountOut {
				t.Fatalf("%s → %s: %s %s arrived, the route promised %s", leg.src, leg.dst, got, leg.dstDenom, rt.AmountOut)
			}
			t.Logf("%s %s → %s %s: %s, %s arrived", leg.src, leg.srcDenom, leg.dst, leg.dstDenom, s.State, got)
		}
	}
}
