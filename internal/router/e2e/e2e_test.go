package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/denom"
	signingv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/signing/v1beta1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/client"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// maxSteps bounds the blocks a transfer may take to arrive (the longest route here, a
// deposit whose hook forwards over the L1, needs about six).
const maxSteps = 15

// wallet is what a wallet does against the router and the chains: it asks for routes and
// messages over HTTP, signs with the standard Cosmos SDK sign modes and broadcasts over
// CometBFT RPC, and reads balances and accounts over Cosmos REST.
type wallet struct {
	t      *testing.T
	ctx    context.Context
	tn     *testNet
	router string
	rpc    map[string]*comet.Client
	rest   map[string]*cosmosrest.Client
	reg    *registry.Registry
	// from is the height of every chain when the current case started (for failure reports).
	from map[string]int64
}

func newWallet(t *testing.T, tn *testNet, routerURL string, reg *registry.Registry) *wallet {
	w := &wallet{t: t, ctx: context.Background(), tn: tn, router: routerURL, reg: reg,
		rpc: map[string]*comet.Client{}, rest: map[string]*cosmosrest.Client{}}
	for id, e := range tn.ln.Endpoints() {
		if e.RPC == "" {
			continue // the Ethereum chain: JSON-RPC only (layerzero_test.go)
		}
		rc, err := comet.New(e.RPC)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := cosmosrest.New(e.REST)
		if err != nil {
			t.Fatal(err)
		}
		w.rpc[id], w.rest[id] = rc, rs
	}
	return w
}

func (w *wallet) post(path string, body any) (int, []byte) {
	w.t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		w.t.Fatal(err)
	}
	resp, err := http.Post(w.router+path, "application/json", bytes.NewReader(raw))
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		w.t.Fatal(err)
	}
	return resp.StatusCode, out
}

func (w *wallet) balance(chainID, addr, denom string) *big.Int {
	w.t.Helper()
	coins, err := w.rest[chainID].Balances(w.ctx, addr, 0)
	if err != nil && !cosmosrest.IsNotFound(err) {
		w.t.Fatalf("balances of %s on %s: %v", addr, chainID, err)
	}
	for _, c := range coins {
		if c.Denom == denom {
			v, ok := new(big.Int).SetString(c.Amount, 10)
			if !ok {
				w.t.Fatalf("balance %q", c.Amount)
			}
			return v
		}
	}
	return new(big.Int)
}

// account reads account_number and sequence over REST, as a wallet does before signing.
func (w *wallet) account(chainID, addr string) (uint64, uint64) {
	w.t.Helper()
	raw, err := w.rest[chainID].Account(w.ctx, addr)
	if err != nil {
		w.t.Fatalf("account %s on %s: %v", addr, chainID, err)
	}
	num, seq, err := devnet.ParseAccount(raw)
	if err != nil {
		w.t.Fatalf("account %s: %v", addr, err)
	}
	return num, seq
}

// decode turns the router's amino JSON messages into the real protobuf messages.
func (w *wallet) decode(list []msgs.CosmosMsg) []proto.Message {
	w.t.Helper()
	var out []proto.Message
	for _, m := range list {
		pm, err := txcodec.UnmarshalAmino(m.MsgTypeURL, []byte(m.Msg))
		if err != nil {
			w.t.Fatalf("%s: %v\n%s", m.MsgTypeURL, err, m.Msg)
		}
		if got := "/" + string(proto.MessageName(pm)); got != m.MsgTypeURL {
			w.t.Fatalf("%s decoded as %s", m.MsgTypeURL, got)
		}
		out = append(out, pm)
	}
	return out
}

// sign builds and signs a transaction of msgs on chainID as account id.
func (w *wallet) sign(chainID string, id int, ms []proto.Message, mode signingv1beta1.SignMode, gas uint64) []byte {
	w.t.Helper()
	pk := w.tn.key(w.t, chainID, id)
	num, seq := w.account(chainID, w.tn.ln.Address(chainID, pk))
	b := txcodec.Builder{ChainID: chainID, Msgs: ms, GasLimit: gas, SignMode: mode,
		Signers: []txcodec.Signer{{Key: pk, AccountNumber: num, Sequence: seq}}}
	raw, err := b.Build()
	if err != nil {
		w.t.Fatalf("sign on %s: %v", chainID, err)
	}
	// The signature must really be in the requested mode (the chain accepts both).
	if d, err := txcodec.Decode(raw); err != nil || len(d.Signers) != 1 || d.Signers[0].Mode != mode {
		w.t.Fatalf("built tx does not carry one %v signature (%v)", mode, err)
	}
	return raw
}

func (w *wallet) broadcast(chainID string, raw []byte) {
	w.t.Helper()
	res, err := w.rpc[chainID].BroadcastTxSync(w.ctx, raw)
	if err != nil {
		w.t.Fatalf("broadcast on %s: %v", chainID, err)
	}
	if res.Code != 0 {
		w.t.Fatalf("broadcast on %s: code %d %s", chainID, res.Code, res.Log)
	}
}

func (w *wallet) mark() {
	w.from = map[string]int64{}
	for id, c := range w.rpc {
		h, err := c.LatestHeight(w.ctx)
		if err != nil {
			w.t.Fatal(err)
		}
		w.from[id] = h
	}
}

// waitFor steps blocks until the balance of denom at addr on chainID has grown by want,
// and fails with every event seen since mark if it does not within maxSteps blocks.
func (w *wallet) waitFor(chainID, addr, denom string, before, want *big.Int) {
	w.t.Helper()
	for i := 0; i < maxSteps; i++ {
		if err := w.tn.step(w.ctx); err != nil {
			w.t.Fatal(err)
		}
		got := new(big.Int).Sub(w.balance(chainID, addr, denom), before)
		if got.Cmp(want) == 0 {
			w.t.Logf("%s %s arrived at %s on %s after %d blocks", want, denom, addr, chainID, i+1)
			return
		}
		if got.Sign() != 0 {
			w.t.Fatalf("%s received %s %s, the route promised %s\n%s", addr, got, denom, want, w.events())
		}
	}
	w.t.Fatalf("%s %s did not arrive at %s on %s within %d blocks\n%s", want, denom, addr, chainID, maxSteps, w.events())
}

// events renders the transactions' results and bridge events of every chain since mark.
func (w *wallet) events() string {
	var sb strings.Builder
	for _, id := range w.tn.ln.ChainIDs() {
		top, _ := w.rpc[id].LatestHeight(w.ctx)
		for h := w.from[id] + 1; h <= top; h++ {
			br, err := w.rpc[id].BlockResults(w.ctx, h)
			if err != nil {
				fmt.Fprintf(&sb, "%s h%d: %v\n", id, h, err)
				continue
			}
			for i, r := range br.TxsResults {
				var kinds []string
				for _, ev := range r.Events {
					switch ev.Type {
					case "tx", "message", "coin_spent", "coin_received", "transfer", "use_feegrant":
						continue
					}
					kinds = append(kinds, renderEvent(ev))
				}
				fmt.Fprintf(&sb, "%s h%d tx%d code=%d %s %s\n", id, h, i, r.Code, r.Log, strings.Join(kinds, " "))
			}
		}
	}
	return sb.String()
}

// findEvent returns the first tx event of a type with key=value on a chain since mark.
func (w *wallet) findEvent(chainID, typ, key, value string) *comet.Event {
	top, err := w.rpc[chainID].LatestHeight(w.ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	for h := w.from[chainID] + 1; h <= top; h++ {
		br, err := w.rpc[chainID].BlockResults(w.ctx, h)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, r := range br.TxsResults {
			for i, ev := range r.Events {
				if ev.Type != typ {
					continue
				}
				for _, a := range ev.Attributes {
					if a.Key == key && a.Value == value {
						return &r.Events[i]
					}
				}
			}
		}
	}
	return nil
}

func renderEvent(ev comet.Event) string {
	attrs := make([]string, 0, len(ev.Attributes))
	for _, a := range ev.Attributes {
		v := a.Value
		if len(v) > 80 {
			v = v[:80] + "…"
		}
		attrs = append(attrs, a.Key+"="+v)
	}
	return ev.Type + "{" + strings.Join(attrs, " ") + "}"
}

type e2eCase struct {
	name               string
	srcChain, srcDenom string
	dstChain, dstDenom string
	amount             string
	signer             int // account id of the source account (see recipientBase)
	recipient          int // account id of the final recipient
	extra              map[string]any
	mode               signingv1beta1.SignMode
	wantOps            int
	wantHook           bool
	wantTxs            int // 0 means 1
}

// TestRoutesEndToEnd runs every route kind against the devnet: route → op hook → msgs →
// decode → sign → broadcast → the promised amount arrives.
func TestRoutesEndToEnd(t *testing.T) {
	tn := startNet(t)
	reg, err := registry.Load(tn.dir)
	if err != nil {
		t.Fatal(err)
	}
	// The router refreshes what the registry cannot know from the chains themselves (bridges,
	// token pairs, channel states) over their REST gateways: that must work on the devnet too.
	live := registry.NewLive(reg)
	if err := live.Refresh(context.Background(), &registry.RESTSource{}); err != nil {
		t.Fatalf("refresh from the devnet: %v", err)
	}
	for _, c := range live.Current().Chains {
		for _, ch := range c.Channels {
			if ch.State != "STATE_OPEN" {
				t.Errorf("%s %s: state %q after refresh", c.ID, ch.ID, ch.State)
			}
		}
	}
	srv := httptest.NewServer(api.New(api.Config{Balances: &registry.RESTBalances{}}, live, nil, prometheus.NewRegistry()))
	defer srv.Close()
	w := newWallet(t, tn, srv.URL, reg)

	direct, amino := txcodec.SignModeDirect, txcodec.SignModeLegacyAminoJSON
	l2Move := denom.L2(2, "uinit")
	const user = 0 // the devnet's first funded user
	r := func(i int) int { return recipientBase + i }
	// Cases run in order: later ones spend what earlier ones delivered (the withdrawal spends
	// the deposit, the unwinding spends the hub's voucher).
	cases := []e2eCase{
		{name: "same_chain_send", srcChain: l1ID, srcDenom: "uinit", dstChain: l1ID, dstDenom: "uinit", amount: "1000000",
			signer: user, recipient: r(1), mode: direct, wantOps: 1},
		{name: "l1_to_l2_deposit", srcChain: l1ID, srcDenom: "uinit", dstChain: moveID, dstDenom: l2Move, amount: "3000000",
			signer: user, recipient: r(2), mode: amino, wantOps: 1},
		{name: "l1_to_evm_deposit", srcChain: l1ID, srcDenom: "uinit", dstChain: evmID, dstDenom: denom.L2(1, "uinit"), amount: "2500000",
			signer: user, recipient: r(3), mode: direct, wantOps: 1},
		{name: "l2_to_l1_fast_ibc", srcChain: moveID, srcDenom: "uusdc", dstChain: l1ID, dstDenom: ibc("transfer/channel-1/uusdc"), amount: "700000",
			signer: user, recipient: r(4), mode: amino, wantOps: 1},
		{name: "l2_to_l1_op_withdraw", srcChain: moveID, srcDenom: l2Move, dstChain: l1ID, dstDenom: "uinit", amount: "1200000",
			signer: r(2), recipient: r(5), extra: map[string]any{"is_op_withdraw": true}, mode: direct, wantOps: 1},
		{name: "l2_to_l2_multihop", srcChain: moveID, srcDenom: "uusdc", dstChain: wasmID, dstDenom: ibc("transfer/channel-0/transfer/channel-1/uusdc"), amount: "450000",
			signer: user, recipient: r(6), mode: amino, wantOps: 2},
		{name: "external_to_l1_ibc", srcChain: hubID, srcDenom: "uatom", dstChain: l1ID, dstDenom: ibc("transfer/channel-3/uatom"), amount: "900000",
			signer: user, recipient: r(7), mode: direct, wantOps: 1},
		{name: "ibc_unwind_to_origin", srcChain: l1ID, srcDenom: ibc("transfer/channel-3/uatom"), dstChain: hubID, dstDenom: "uatom", amount: "400000",
			signer: r(7), recipient: r(8), mode: amino, wantOps: 1},
		{name: "external_to_l2_via_l1", srcChain: hubID, srcDenom: "uatom", dstChain: wasmID, dstDenom: ibc("transfer/channel-0/transfer/channel-3/uatom"), amount: "650000",
			signer: user, recipient: r(10), mode: amino, wantOps: 2},
		{name: "ibc_unwind_two_hops", srcChain: wasmID, srcDenom: ibc("transfer/channel-0/transfer/channel-3/uatom"), dstChain: hubID, dstDenom: "uatom", amount: "250000",
			signer: r(10), recipient: r(11), mode: direct, wantOps: 2},
		// Two transactions: the slow withdrawal (claimed on L1), then IBC from L1 to the hub.
		{name: "multi_tx_withdraw_then_ibc", srcChain: moveID, srcDenom: l2Move, dstChain: hubID, dstDenom: ibc("transfer/channel-0/uinit"), amount: "500000",
			signer: r(2), recipient: r(12), extra: map[string]any{"is_op_withdraw": true, "allow_multi_tx": true}, mode: amino, wantOps: 2, wantTxs: 2},
		{name: "op_hook_deposit_then_ibc", srcChain: l1ID, srcDenom: "uinit", dstChain: wasmID, dstDenom: ibc("transfer/channel-0/transfer/channel-1/" + l2Move), amount: "800000",
			signer: user, recipient: r(9), extra: map[string]any{"allow_amount_hooks": true}, mode: direct, wantOps: 3, wantHook: true},
		// The same path for a standard client (no allow_amount_hooks): the deposit, then the
		// user's own IBC transfer from the rollup in a second transaction.
		{name: "deposit_then_ibc_two_txs", srcChain: l1ID, srcDenom: "uinit", dstChain: wasmID, dstDenom: ibc("transfer/channel-0/transfer/channel-1/" + l2Move), amount: "300000",
			signer: user, recipient: r(13), extra: map[string]any{"allow_multi_tx": true}, mode: direct, wantOps: 3, wantTxs: 2},
	}
	for _, tc := range cases {
		if !t.Run(tc.name, func(t *testing.T) { w.t = t; w.run(tc) }) {
			t.Fatalf("%s failed; later cases depend on it", tc.name)
		}
	}
	// /v2/info/balances reads the same chains: every recipient holds what its route delivered.
	w.t = t
	spenders := map[int]bool{}
	for _, tc := range cases {
		spenders[tc.signer] = true
	}
	for _, tc := range cases {
		if spenders[tc.recipient] {
			continue // spent part of it in a later case
		}
		st, out := w.post("/v2/info/balances", map[string]any{"chains": map[string]any{
			tc.dstChain: map[string]any{"address": tn.addr(t, tc.dstChain, tc.recipient), "denoms": []string{tc.dstDenom}}}})
		var resp struct {
			Chains map[string]struct {
				Denoms map[string]wire.DenomBalance `json:"denoms"`
			} `json:"chains"`
		}
		if err := json.Unmarshal(out, &resp); err != nil || st != http.StatusOK {
			t.Fatalf("balances: %d %s", st, out)
		}
		if got := resp.Chains[tc.dstChain].Denoms[tc.dstDenom]; got.Amount != tc.amount || got.Error != nil {
			t.Errorf("%s: /v2/info/balances says %+v, the route delivered %s", tc.name, got, tc.amount)
		}
	}
}

func ibc(path string) string { return "ibc/" + denom.IBCHash(path) }

// prepare asks the router for tc's route and messages as a wallet does (route, op hook when
// required, msgs) and returns them with the recipient's address.
func (w *wallet) prepare(tc e2eCase) (route.Route, msgs.Response, string) {
	t := w.t
	req := map[string]any{"amount_in": tc.amount, "source_asset_chain_id": tc.srcChain, "source_asset_denom": tc.srcDenom,
		"dest_asset_chain_id": tc.dstChain, "dest_asset_denom": tc.dstDenom}
	for k, v := range tc.extra {
		req[k] = v
	}
	st, body := w.post("/v2/fungible/route", req)
	if st != http.StatusOK {
		t.Fatalf("route: %d %s", st, body)
	}
	var rt route.Route
	if err := json.Unmarshal(body, &rt); err != nil {
		t.Fatal(err)
	}
	wantTxs := max(tc.wantTxs, 1)
	if len(rt.Operations) != tc.wantOps || rt.RequiredOPHook != tc.wantHook || rt.TxsRequired != wantTxs {
		t.Fatalf("route has %d operations, hook %v, %d txs; want %d, %v, %d:\n%s", len(rt.Operations), rt.RequiredOPHook, rt.TxsRequired,
			tc.wantOps, tc.wantHook, wantTxs, body)
	}
	// Transfers here charge no fee (estimated_fees is empty): amount_out must arrive intact.
	if len(rt.EstimatedFees) != 0 {
		t.Fatalf("unexpected fees %+v", rt.EstimatedFees)
	}
	// The refreshed registry knows the devnet's bridges finalize at once.
	if tc.extra["is_op_withdraw"] == true && !slices.ContainsFunc(rt.ExtraInfos, func(s string) bool { return strings.Contains(s, "claimable on "+l1ID+" at once") }) {
		t.Errorf("withdrawal extra_infos %q", rt.ExtraInfos)
	}
	// address_list: the user's own address on every chain of the route, the recipient last.
	addrs := make([]string, len(rt.RequiredChainAddresses))
	for i, c := range rt.RequiredChainAddresses {
		addrs[i] = w.tn.addr(t, c, tc.signer)
	}
	dest := w.tn.addr(t, tc.dstChain, tc.recipient)
	addrs[len(addrs)-1] = dest
	mreq := map[string]any{"source_asset_chain_id": rt.SourceAssetChainID, "source_asset_denom": rt.SourceAssetDenom,
		"dest_asset_chain_id": rt.DestAssetChainID, "dest_asset_denom": rt.DestAssetDenom, "amount_in": rt.AmountIn,
		"amount_out": rt.AmountOut, "address_list": addrs, "slippage_tolerance_percent": "1", "operations": rt.Operations}
	if rt.RequiredOPHook {
		mreq["signed_op_hook"] = w.opHook(tc, rt, dest)
	}
	st, body = w.post("/v2/fungible/msgs", mreq)
	if st != http.StatusOK {
		t.Fatalf("msgs: %d %s", st, body)
	}
	var mr msgs.Response
	if err := json.Unmarshal(body, &mr); err != nil {
		t.Fatal(err)
	}
	if len(mr.Txs) != wantTxs {
		t.Fatalf("want %d txs: %s", wantTxs, body)
	}
	return rt, mr, dest
}

func (w *wallet) run(tc e2eCase) {
	t := w.t
	rt, mr, dest := w.prepare(tc)
	srcBefore := w.balance(tc.srcChain, w.tn.addr(t, tc.srcChain, tc.signer), tc.srcDenom)
	w.mark()
	// Each transaction is signed once the previous one delivered its output to the address
	// that signs it (the user's own address on the intermediate chain).
	for i, tx := range mr.Txs {
		ctx := tx.CosmosTx
		if ctx == nil || len(tx.OperationsIndices) == 0 {
			t.Fatalf("tx %d is not a cosmos tx: %+v", i, tx)
		}
		if ctx.SignerAddress != w.tn.addr(t, ctx.ChainID, tc.signer) || i == 0 && ctx.ChainID != tc.srcChain {
			t.Fatalf("tx %d on %s signed by %s", i, ctx.ChainID, ctx.SignerAddress)
		}
		last := rt.Operations[tx.OperationsIndices[len(tx.OperationsIndices)-1]]
		chainOut, denomOut, to := last.ToChainID(), last.DenomOut(), dest
		if i+1 < len(mr.Txs) {
			to = mr.Txs[i+1].CosmosTx.SignerAddress
		}
		want, ok := new(big.Int).SetString(last.AmountOut, 10)
		if !ok || i+1 == len(mr.Txs) && last.AmountOut != rt.AmountOut {
			t.Fatalf("tx %d delivers %q, the route promises %s", i, last.AmountOut, rt.AmountOut)
		}
		before := w.balance(chainOut, to, denomOut)
		w.broadcast(ctx.ChainID, w.sign(ctx.ChainID, tc.signer, w.decode(ctx.Msgs), tc.mode, 2_000_000))
		if last.OPInitTransfer != nil && last.FromChainID() != l1ID {
			w.claimWithdrawal(chainOut, ctx.ChainID, denomOut, to, want)
		} else {
			w.waitFor(chainOut, to, denomOut, before, want)
		}
	}
	spent := new(big.Int).Sub(srcBefore, w.balance(tc.srcChain, w.tn.addr(t, tc.srcChain, tc.signer), tc.srcDenom))
	if spent.String() != rt.AmountIn {
		t.Errorf("the source account spent %s %s, the route's amount_in is %s", spent, tc.srcDenom, rt.AmountIn)
	}
}

// opHook asks /op-hook for the rollup-side messages, signs them on the rollup as the deposit's
// recipient (the user's rollup address) the way InterwovenKit does (SIGN_MODE_DIRECT, gas 1),
// and returns the signed_op_hook for /msgs.
func (w *wallet) opHook(tc e2eCase, rt route.Route, dest string) map[string]any {
	t := w.t
	req := map[string]any{"source_address": w.tn.addr(t, tc.srcChain, tc.signer), "dest_address": dest,
		"source_asset_chain_id": rt.SourceAssetChainID, "source_asset_denom": rt.SourceAssetDenom,
		"dest_asset_chain_id": rt.DestAssetChainID, "dest_asset_denom": rt.DestAssetDenom}
	// rollgate's extension, as on /route; without amount_in the answer says what to send.
	req["allow_amount_hooks"] = true
	st, body := w.post("/op-hook", req)
	var e struct {
		Details []string `json:"details"`
		Info    string   `json:"info"`
	}
	if err := json.Unmarshal(body, &e); err != nil || st != http.StatusBadRequest || len(e.Details) == 0 ||
		e.Details[0] != api.ReasonHookAmountRequired || !strings.Contains(e.Info, "amount_in") {
		t.Fatalf("op-hook without amount_in: %d %s", st, body)
	}
	req["amount_in"] = rt.AmountIn
	st, body = w.post("/op-hook", req)
	if st != http.StatusOK {
		t.Fatalf("op-hook: %d %s", st, body)
	}
	var hr wire.OPHookResponse
	if err := json.Unmarshal(body, &hr); err != nil {
		t.Fatal(err)
	}
	raw := w.sign(hr.ChainID, tc.signer, w.decode(hr.Hook), txcodec.SignModeDirect, 1)
	return map[string]any{"signer": w.tn.addr(t, hr.ChainID, tc.signer), "hook": base64.StdEncoding.EncodeToString(raw)}
}

// claimWithdrawal waits for the rollup's withdrawal to show in the executor API, claims it on
// L1 with MsgFinalizeTokenWithdrawal built from the executor's answer, and waits for the L1
// balance.
func (w *wallet) claimWithdrawal(l1, rollup, l1Denom, dest string, want *big.Int) {
	t := w.t
	exec := w.reg.Chain(rollup).ExecutorURI
	if exec == "" {
		t.Fatalf("%s has no executor_uri in the registry", rollup)
	}
	list := func() []client.ExecutorWithdrawal {
		resp, err := http.Get(exec + "/withdrawals/" + dest)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var page struct{ Withdrawals []client.ExecutorWithdrawal }
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
			t.Fatal(err)
		}
		return page.Withdrawals
	}
	// The withdrawal tx is still in the mempool: what the executor lists now is older.
	seen := map[uint64]bool{}
	for _, x := range list() {
		seen[x.Sequence] = true
	}
	var found *client.ExecutorWithdrawal
	for i := 0; i < maxSteps && found == nil; i++ {
		if err := w.tn.step(w.ctx); err != nil {
			t.Fatal(err)
		}
		for _, x := range list() {
			if !seen[x.Sequence] {
				found = &x
				break
			}
		}
	}
	if found == nil {
		t.Fatalf("no withdrawal to %s in the executor API\n%s", dest, w.events())
	}
	if found.Amount.Denom != l1Denom || found.Amount.Amount != want.String() {
		t.Fatalf("withdrawal of %s %s, the route promised %s %s", found.Amount.Amount, found.Amount.Denom, want, l1Denom)
	}
	if ev := w.findEvent(rollup, "initiate_token_withdrawal", "l2_sequence", strconv.FormatUint(found.Sequence, 10)); ev == nil {
		t.Fatalf("no initiate_token_withdrawal event with l2_sequence %d on %s\n%s", found.Sequence, rollup, w.events())
	} else {
		t.Logf("%s: %s", rollup, renderEvent(*ev))
	}
	// Anyone may claim; the user pays for it on L1 (the recipient may have no L1 account).
	const claimer = 0
	before := w.balance(l1, dest, l1Denom)
	claim := found.Claim(w.tn.addr(t, l1, claimer))
	w.broadcast(l1, w.sign(l1, claimer, []proto.Message{claim}, txcodec.SignModeLegacyAminoJSON, 1_000_000))
	w.waitFor(l1, dest, l1Denom, before, want)
}
