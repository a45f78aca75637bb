package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	signingv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/signing/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// The client this file plays is InterwovenKit (initia-labs/interwovenkit@913e480,
// packages/interwovenkit-react/src/ below, "IK:"): its bridge flow for a route with
// required_op_hook, request by request and byte by byte where the chain checks bytes.

// ikOpHookBody is IK's /op-hook body: six fields, no amount_in (IK:pages/bridge/data/tx.ts:355-366;
// initia.js sends the same six, initia-labs/initia.js@a60dc6b:src/bridge/router-client.ts:221-232).
func ikOpHookBody(rt route.Route, source, dest string) map[string]any {
	return map[string]any{"source_address": source, "source_asset_chain_id": rt.SourceAssetChainID,
		"source_asset_denom": rt.SourceAssetDenom, "dest_address": dest,
		"dest_asset_chain_id": rt.DestAssetChainID, "dest_asset_denom": rt.DestAssetDenom}
}

// ikAminoMsgCall is what IK's amino converter makes of a router MsgCall before signing:
// fromAmino(JSON.parse(msg)) then toAmino, i.e. {sender, contract_addr, input, value,
// access_list: null when empty} with auth_list left out when the access list is empty
// (initia-labs/amino-converter@0235bfe:src/minievm/evm/v1/tx.ts:82-118).
func ikAminoMsgCall(t *testing.T, msg string) (map[string]any, *evmv1.MsgCall) {
	t.Helper()
	var v struct {
		Sender       string            `json:"sender"`
		ContractAddr string            `json:"contract_addr"`
		Input        string            `json:"input"`
		Value        string            `json:"value"`
		AccessList   []json.RawMessage `json:"access_list"`
	}
	if err := json.Unmarshal([]byte(msg), &v); err != nil {
		t.Fatalf("hook msg is not amino JSON: %v\n%s", err, msg)
	}
	if len(v.AccessList) != 0 {
		t.Fatalf("hook msg has an access list: %s", msg)
	}
	am := map[string]any{"sender": v.Sender, "contract_addr": v.ContractAddr, "input": v.Input, "value": v.Value, "access_list": nil}
	return am, &evmv1.MsgCall{Sender: v.Sender, ContractAddr: v.ContractAddr, Input: v.Input, Value: v.Value}
}

// ikSignOpHook signs the hook as IK's "Authorize conversion" does (IK:pages/bridge/data/tx.ts:368-395,
// IK:data/signer.ts:143-151,185-249): the account as the hook chain's REST reports it, the
// sequence advanced by 2 when the hook runs on the route's source chain, fee {amount: [],
// gas: "1"}, memo "", the key-sorted amino StdSignDoc signed with personal_sign (EIP-191,
// keccak256), the signature without its recovery byte, an ethsecp256k1 public key, and
// SIGN_MODE_EIP_191; the result is base64 of an encoded cosmos.tx.v1beta1.Tx.
func (w *wallet) ikSignOpHook(hr wire.OPHookResponse, srcChain string, signer int) map[string]any {
	t := w.t
	pk := w.tn.key(t, hr.ChainID, signer)
	addr := w.tn.ln.Address(hr.ChainID, pk)
	num, seq := w.accountInfo(hr.ChainID, addr)
	if hr.ChainID == srcChain {
		seq += 2 // "the 2 MsgCalls in the initial bridge transaction" (IK:pages/bridge/data/tx.ts:375-386)
	}
	var aminoMsgs []any
	body := &txv1beta1.TxBody{}
	for _, m := range hr.Hook {
		if m.MsgTypeURL != msgs.TypeMsgCall {
			t.Fatalf("hook message %s: IK signs only what its converters know, the router sends MsgCall", m.MsgTypeURL)
		}
		am, pm := ikAminoMsgCall(t, m.Msg)
		aminoMsgs = append(aminoMsgs, map[string]any{"type": "evm/MsgCall", "value": am})
		v, err := proto.Marshal(pm)
		if err != nil {
			t.Fatal(err)
		}
		body.Messages = append(body.Messages, &anypb.Any{TypeUrl: m.MsgTypeURL, Value: v})
	}
	doc := map[string]any{"account_number": strconv.FormatUint(num, 10), "chain_id": hr.ChainID,
		"fee": map[string]any{"amount": []any{}, "gas": "1"}, "memo": "", "msgs": aminoMsgs, "sequence": strconv.FormatUint(seq, 10)}
	// encoding/json sorts map keys and escapes <, > and & as \u003c…, which is IK's
	// sortedJsonStringify + escapeCharacters.
	docJSON, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := crypto.ToECDSA(pk.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(accounts.TextHash(docJSON), priv) // personal_sign
	if err != nil {
		t.Fatal(err)
	}
	pub, err := pk.PubKey().Any()
	if err != nil {
		t.Fatal(err)
	}
	tx := &txv1beta1.Tx{Body: body, AuthInfo: &txv1beta1.AuthInfo{
		SignerInfos: []*txv1beta1.SignerInfo{{PublicKey: pub, Sequence: seq, ModeInfo: &txv1beta1.ModeInfo{
			Sum: &txv1beta1.ModeInfo_Single_{Single: &txv1beta1.ModeInfo_Single{Mode: signingv1beta1.SignMode_SIGN_MODE_EIP_191}}}}},
		Fee: &txv1beta1.Fee{Amount: []*basev1beta1.Coin{}, GasLimit: 1}},
		Signatures: [][]byte{sig[:64]}}
	raw, err := proto.Marshal(tx)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"signer": addr, "hook": base64.StdEncoding.EncodeToString(raw)}
}

// accountInfo is IK's account wait on the hook chain: GET /cosmos/auth/v1beta1/account_info
// (IK:pages/bridge/data/account.ts), whose answer also gives the number and sequence.
func (w *wallet) accountInfo(chainID, addr string) (uint64, uint64) {
	w.t.Helper()
	var out struct {
		Info struct {
			AccountNumber string `json:"account_number"`
			Sequence      string `json:"sequence"`
		} `json:"info"`
	}
	if err := w.rest[chainID].Get(w.ctx, "/cosmos/auth/v1beta1/account_info/"+addr, nil, 0, &out); err != nil {
		w.t.Fatalf("account_info %s on %s: %v", addr, chainID, err)
	}
	num, err1 := strconv.ParseUint(out.Info.AccountNumber, 10, 64)
	seq, err2 := strconv.ParseUint(out.Info.Sequence, 10, 64)
	if err1 != nil || err2 != nil {
		w.t.Fatalf("account_info %s: %+v", addr, out)
	}
	return num, seq
}

// hookRoute is one route the router marks required_op_hook.
type hookRoute struct {
	src, srcDenom, dst, dstDenom string
	rt                           route.Route
}

// hookRoutes asks /route for every pair of registry assets and keeps those that need an op hook.
func (n *trackNet) hookRoutes(amount string) []hookRoute {
	return n.routesWhere(amount, func(rt route.Route) bool { return rt.RequiredOPHook })
}

// routesWhere asks /route, as a standard client, for every pair of registry assets and keeps
// the routes keep accepts.
func (n *trackNet) routesWhere(amount string, keep func(route.Route) bool) []hookRoute {
	var out []hookRoute
	for _, sc := range n.reg.Chains {
		for _, sa := range sc.Assets {
			for _, dc := range n.reg.Chains {
				for _, da := range dc.Assets {
					if sc.ID == dc.ID && sa.Denom == da.Denom {
						continue
					}
					st, body := n.post("/v2/fungible/route", map[string]any{"amount_in": amount, "source_asset_chain_id": sc.ID,
						"source_asset_denom": sa.Denom, "dest_asset_chain_id": dc.ID, "dest_asset_denom": da.Denom})
					if st != http.StatusOK {
						continue
					}
					var rt route.Route
					if err := json.Unmarshal(body, &rt); err != nil {
						n.t.Fatal(err)
					}
					if keep(rt) {
						out = append(out, hookRoute{sc.ID, sa.Denom, dc.ID, da.Denom, rt})
					}
				}
			}
		}
	}
	return out
}

// TestOPHookInterwovenKit drives every route the router marks required_op_hook on the devnet
// with InterwovenKit's requests and signatures: /route, /op-hook (six fields), the hook
// signed with EIP-191, /msgs with signed_op_hook, the source tx signed with EIP-191 (IK's
// only mode), /v2/tx/submit, /v2/tx/status to a terminal state; the recipient's balance of
// the 18-decimal token, read from the rollup, is the amount × 10^12. The requests are a
// standard client's (no allow_amount_hooks), over every pair of devnet assets (hookRoutes),
// so each route marked required_op_hook must complete.
func TestOPHookInterwovenKit(t *testing.T) {
	n := startTrackNet(t, "")
	const amount = "1500000"
	routes := n.hookRoutes(amount)
	wrapped := 0
	for i, hr := range routes {
		name := fmt.Sprintf("%s_%s_to_%s_%s", hr.src, hr.srcDenom, hr.dst, hr.dstDenom)
		name = strings.NewReplacer("/", "_", "-devnet-1", "").Replace(name)
		t.Run(name, func(t *testing.T) {
			n.t = t
			signer, recipient := 0, recipientBase+40+i
			src := n.tn.addr(t, hr.src, signer)
			dest := n.tn.addr(t, hr.dst, recipient)
			st, body := n.post("/op-hook", ikOpHookBody(hr.rt, src, dest))
			// A standard request is never offered a hook that needs amount_in (rollgate's
			// allow_amount_hooks routes, TestRoutesEndToEnd): every hook here is IK's.
			if st != http.StatusOK {
				t.Fatalf("op-hook: %d %s", st, body)
			}
			wrapped++
			var hook wire.OPHookResponse
			if err := json.Unmarshal(body, &hook); err != nil {
				t.Fatal(err)
			}
			n.ikRoute(hr, hook, signer, src, dest)
		})
		n.t = t
	}
	if wrapped == 0 || wrapped != len(routes) {
		t.Fatalf("%d of the %d op-hook routes completed", wrapped, len(routes))
	}
}

// ikRoute is IK's part after the hook: sign it, /msgs, sign and submit the source tx, track.
func (n *trackNet) ikRoute(hr hookRoute, hook wire.OPHookResponse, signer int, src, dest string) {
	t := n.t
	rt := hr.rt
	signed := n.ikSignOpHook(hook, rt.SourceAssetChainID, signer)
	// address_list: the user's init1 address on each chain, the recipient last
	// (IK:pages/bridge/FooterWithAddressList.tsx:86-110); body as IK:pages/bridge/data/bridgeTxUtils.ts:30-48.
	addrs := make([]string, len(rt.RequiredChainAddresses))
	for i, c := range rt.RequiredChainAddresses {
		addrs[i] = n.tn.addr(t, c, signer)
	}
	addrs[len(addrs)-1] = dest
	st, body := n.post("/v2/fungible/msgs", map[string]any{"address_list": addrs, "amount_in": rt.AmountIn, "amount_out": rt.AmountOut,
		"source_asset_chain_id": rt.SourceAssetChainID, "source_asset_denom": rt.SourceAssetDenom,
		"dest_asset_chain_id": rt.DestAssetChainID, "dest_asset_denom": rt.DestAssetDenom,
		"slippage_tolerance_percent": "1", "operations": rt.Operations, "signed_op_hook": signed})
	if st != http.StatusOK {
		t.Fatalf("msgs: %d %s", st, body)
	}
	var mr msgs.Response
	if err := json.Unmarshal(body, &mr); err != nil || len(mr.Txs) == 0 || mr.Txs[0].CosmosTx == nil {
		t.Fatalf("msgs answer: %v %s", err, body)
	}
	ctx := mr.Txs[0].CosmosTx // IK reads only txs[0] (IK:pages/bridge/FooterWithMsgs.tsx:104)
	if hook.ChainID == ctx.ChainID {
		// Same-chain hook: IK signed it at sequence+2, so the source tx must hold exactly two MsgCalls.
		if len(ctx.Msgs) != 2 || ctx.Msgs[0].MsgTypeURL != msgs.TypeMsgCall || ctx.Msgs[1].MsgTypeURL != msgs.TypeMsgCall {
			t.Fatalf("same-chain hook, source tx %+v", ctx.Msgs)
		}
	}
	wrappedDenom := rt.DestAssetDenom
	before := n.balance(rt.DestAssetChainID, dest, wrappedDenom)
	n.mark()
	raw := n.sign(ctx.ChainID, signer, n.decode(ctx.Msgs), txcodec.SignModeEIP191, 2_000_000)
	hash := n.submit(ctx.ChainID, raw)
	s, _ := n.follow(ctx.ChainID, hash, terminal)
	if s.State != track.StateCompletedSuccess {
		b, _ := json.Marshal(s)
		t.Fatalf("state %s: %s\n%s", s.State, b, n.events())
	}
	if ev := n.findEvent(hook.ChainID, "finalize_token_deposit", "success", "true"); ev == nil {
		t.Fatalf("no successful finalize_token_deposit on %s\n%s", hook.ChainID, n.events())
	}
	// Ground truth from the rollup's state: amount × 10^(18−6) of the wrapped token.
	in, _ := new(big.Int).SetString(rt.AmountIn, 10)
	want := new(big.Int).Mul(in, new(big.Int).Exp(big.NewInt(10), big.NewInt(12), nil))
	if got := new(big.Int).Sub(n.balance(rt.DestAssetChainID, dest, wrappedDenom), before); got.Cmp(want) != 0 {
		t.Fatalf("%s received %s %s, want %s\n%s", dest, got, wrappedDenom, want, n.events())
	}
	t.Logf("%s %s → %s %s: %s arrived (src %s)", rt.SourceAssetChainID, rt.SourceAssetDenom, rt.DestAssetChainID, wrappedDenom, want, src)
}

// TestWrappedRoundTripInterwovenKit: INIT from the L1 into the user's own wrapped INIT on the
// EVM rollup (the op hook, IK's default recipient = the user), then back to the L1 with IK's
// OP-withdrawal quote (is_op_withdraw, IK:pages/bridge/BridgeFields.tsx:133-139): the source
// tx on the rollup is exactly two MsgCalls, approve and toRemoteAndOPWithdraw, signed with
// EIP-191; the withdrawal is claimed on the L1 and the receiver's uinit grows by the amount.
func TestWrappedRoundTripInterwovenKit(t *testing.T) {
	n := startTrackNet(t, "")
	var wrapped string
	for _, a := range n.reg.Chain(evmID).Assets {
		if a.Wrap != nil {
			wrapped = a.Denom
		}
	}
	if wrapped == "" {
		t.Fatal("the devnet registry lists no wrapped asset on " + evmID)
	}
	const user = 0
	self := n.tn.addr(t, evmID, user)
	st, body := n.post("/v2/fungible/route", map[string]any{"amount_in": "3000000", "source_asset_chain_id": l1ID, "source_asset_denom": "uinit",
		"dest_asset_chain_id": evmID, "dest_asset_denom": wrapped})
	var in route.Route
	if err := json.Unmarshal(body, &in); err != nil || st != http.StatusOK || !in.RequiredOPHook {
		t.Fatalf("route in: %d %s", st, body)
	}
	st, body = n.post("/op-hook", ikOpHookBody(in, n.tn.addr(t, l1ID, user), self))
	var hook wire.OPHookResponse
	if err := json.Unmarshal(body, &hook); err != nil || st != http.StatusOK {
		t.Fatalf("op-hook: %d %s", st, body)
	}
	n.ikRoute(hookRoute{rt: in}, hook, user, n.tn.addr(t, l1ID, user), self)

	// Back: 1 INIT of the 3 (10^18 wrapped base units).
	st, body = n.post("/v2/fungible/route", map[string]any{"amount_in": "1000000000000000000", "source_asset_chain_id": evmID, "source_asset_denom": wrapped,
		"dest_asset_chain_id": l1ID, "dest_asset_denom": "uinit", "is_op_withdraw": true})
	var out route.Route
	if err := json.Unmarshal(body, &out); err != nil || st != http.StatusOK || out.RequiredOPHook || out.AmountOut != "1000000" ||
		len(out.Operations) != 1 || out.Operations[0].OPInitTransfer == nil {
		t.Fatalf("route out: %d %s", st, body)
	}
	receiver := n.tn.addr(t, l1ID, recipientBase+90)
	st, body = n.post("/v2/fungible/msgs", map[string]any{"address_list": []string{self, receiver}, "amount_in": out.AmountIn, "amount_out": out.AmountOut,
		"source_asset_chain_id": evmID, "source_asset_denom": wrapped, "dest_asset_chain_id": l1ID, "dest_asset_denom": "uinit",
		"slippage_tolerance_percent": "1", "operations": out.Operations})
	var mr msgs.Response
	if err := json.Unmarshal(body, &mr); err != nil || st != http.StatusOK || len(mr.Txs) != 1 || mr.Txs[0].CosmosTx == nil {
		t.Fatalf("msgs out: %d %s", st, body)
	}
	ctx := mr.Txs[0].CosmosTx
	if len(ctx.Msgs) != 2 || ctx.Msgs[0].MsgTypeURL != msgs.TypeMsgCall || ctx.Msgs[1].MsgTypeURL != msgs.TypeMsgCall {
		t.Fatalf("source tx leaving the rollup from wrapped INIT: %s", body)
	}
	before := n.balance(evmID, self, wrapped)
	_, seq := n.account(evmID, self)
	n.mark()
	n.broadcast(evmID, n.sign(evmID, user, n.decode(ctx.Msgs), txcodec.SignModeEIP191, 2_000_000))
	n.claimWithdrawal(l1ID, evmID, "uinit", receiver, big.NewInt(1_000_000))
	spent := new(big.Int).Sub(before, n.balance(evmID, self, wrapped))
	if spent.String() != out.AmountIn {
		t.Errorf("the user's wrapped INIT fell by %s, the route's amount_in is %s", spent, out.AmountIn)
	}
	// minievm's rule: a tx of two MsgCalls uses two sequences.
	if _, after := n.account(evmID, self); after != seq+2 {
		t.Errorf("sequence %d after the two-MsgCall tx signed at %d", after, seq)
	}
}

// A hook that cannot run (here signed at the wrong sequence, as a client that wrongly adds 2
// would) never loses the deposit: finalize_token_deposit reports success=false with opchild's
// reason, the 6-decimal coin stays with the hook's signer (the deposit's recipient), nothing
// is wrapped, and the tracker ends in STATE_COMPLETED_ERROR.
func TestWrapHookFailureKeepsDeposit(t *testing.T) {
	n := startTrackNet(t, "")
	var w *registry.Asset
	for _, a := range n.reg.Chain(evmID).Assets {
		if a.Wrap != nil {
			w = a
		}
	}
	if w == nil {
		t.Fatal("no wrapped asset on " + evmID)
	}
	const user = 0
	src, self := n.tn.addr(t, l1ID, user), n.tn.addr(t, evmID, user)
	dest := n.tn.addr(t, evmID, recipientBase+91)
	st, body := n.post("/v2/fungible/route", map[string]any{"amount_in": "700000", "source_asset_chain_id": l1ID, "source_asset_denom": "uinit",
		"dest_asset_chain_id": evmID, "dest_asset_denom": w.Denom})
	var rt route.Route
	if err := json.Unmarshal(body, &rt); err != nil || st != http.StatusOK {
		t.Fatalf("route: %d %s", st, body)
	}
	st, body = n.post("/op-hook", ikOpHookBody(rt, src, dest))
	var hook wire.OPHookResponse
	if err := json.Unmarshal(body, &hook); err != nil || st != http.StatusOK {
		t.Fatalf("op-hook: %d %s", st, body)
	}
	signed := n.ikSignOpHook(hook, hook.ChainID, user) // sequence + 2 on a cross-chain route: wrong
	st, body = n.post("/v2/fungible/msgs", map[string]any{"address_list": []string{src, dest}, "amount_in": rt.AmountIn, "amount_out": rt.AmountOut,
		"source_asset_chain_id": l1ID, "source_asset_denom": "uinit", "dest_asset_chain_id": evmID, "dest_asset_denom": w.Denom,
		"slippage_tolerance_percent": "1", "operations": rt.Operations, "signed_op_hook": signed})
	var mr msgs.Response
	if err := json.Unmarshal(body, &mr); err != nil || st != http.StatusOK {
		t.Fatalf("msgs: %d %s", st, body)
	}
	coinBefore := n.balance(evmID, self, w.Wrap.RemoteDenom)
	n.mark()
	hash := n.submit(l1ID, n.sign(l1ID, user, n.decode(mr.Txs[0].CosmosTx.Msgs), txcodec.SignModeEIP191, 2_000_000))
	s, _ := n.follow(l1ID, hash, terminal)
	if s.State != track.StateCompletedError {
		t.Errorf("state %s, want %s", s.State, track.StateCompletedError)
	}
	ev := n.findEvent(evmID, "finalize_token_deposit", "success", "false")
	if ev == nil {
		t.Fatalf("no failed finalize_token_deposit\n%s", n.events())
	}
	var reason string
	for _, a := range ev.Attributes {
		if a.Key == "reason" {
			reason = a.Value
		}
	}
	if !strings.HasPrefix(reason, "hook failed; Failed to run AnteHandler: account sequence mismatch") {
		t.Errorf("reason %q", reason)
	}
	if got := new(big.Int).Sub(n.balance(evmID, self, w.Wrap.RemoteDenom), coinBefore); got.String() != rt.AmountIn {
		t.Errorf("the signer kept %s %s of the deposit, want %s", got, w.Wrap.RemoteDenom, rt.AmountIn)
	}
	if got := n.balance(evmID, dest, w.Denom); got.Sign() != 0 {
		t.Errorf("the receiver got %s wrapped from a failed hook", got)
	}
}

// TestWrappedIBCInterwovenKit: the user's wrapped INIT on the EVM rollup leaves over IBC to
// the L1 (the route's first operation starts from the wrapper token): the source tx is
// approve + toRemoteAndIBCTransfer, signed with EIP-191; the L1 voucher arrives at the
// receiver, tracked to STATE_COMPLETED_SUCCESS.
func TestWrappedIBCInterwovenKit(t *testing.T) {
	n := startTrackNet(t, "")
	var wrapped *registry.Asset
	for _, a := range n.reg.Chain(evmID).Assets {
		if a.Wrap != nil {
			wrapped = a
		}
	}
	if wrapped == nil {
		t.Fatal("no wrapped asset on " + evmID)
	}
	const user = 0
	self := n.tn.addr(t, evmID, user)
	st, body := n.post("/v2/fungible/route", map[string]any{"amount_in": "2000000", "source_asset_chain_id": l1ID, "source_asset_denom": "uinit",
		"dest_asset_chain_id": evmID, "dest_asset_denom": wrapped.Denom})
	var in route.Route
	if err := json.Unmarshal(body, &in); err != nil || st != http.StatusOK {
		t.Fatalf("route in: %d %s", st, body)
	}
	st, body = n.post("/op-hook", ikOpHookBody(in, n.tn.addr(t, l1ID, user), self))
	var hook wire.OPHookResponse
	if err := json.Unmarshal(body, &hook); err != nil || st != http.StatusOK {
		t.Fatalf("op-hook: %d %s", st, body)
	}
	n.ikRoute(hookRoute{rt: in}, hook, user, n.tn.addr(t, l1ID, user), self)

	voucher := ibc("transfer/" + n.channel(l1ID, evmID) + "/" + wrapped.Wrap.RemoteDenom)
	st, body = n.post("/v2/fungible/route", map[string]any{"amount_in": "1000000000000000000", "source_asset_chain_id": evmID,
		"source_asset_denom": wrapped.Denom, "dest_asset_chain_id": l1ID, "dest_asset_denom": voucher})
	var out route.Route
	if err := json.Unmarshal(body, &out); err != nil || st != http.StatusOK || len(out.Operations) != 1 || out.Operations[0].Transfer == nil {
		t.Fatalf("route out: %d %s", st, body)
	}
	receiver := n.tn.addr(t, l1ID, recipientBase+92)
	st, body = n.post("/v2/fungible/msgs", map[string]any{"address_list": []string{self, receiver}, "amount_in": out.AmountIn, "amount_out": out.AmountOut,
		"source_asset_chain_id": evmID, "source_asset_denom": wrapped.Denom, "dest_asset_chain_id": l1ID, "dest_asset_denom": voucher,
		"slippage_tolerance_percent": "1", "operations": out.Operations})
	var mr msgs.Response
	if err := json.Unmarshal(body, &mr); err != nil || st != http.StatusOK || len(mr.Txs) != 1 || len(mr.Txs[0].CosmosTx.Msgs) != 2 {
		t.Fatalf("msgs out: %d %s", st, body)
	}
	before := n.balance(l1ID, receiver, voucher)
	n.mark()
	hash := n.submit(evmID, n.sign(evmID, user, n.decode(mr.Txs[0].CosmosTx.Msgs), txcodec.SignModeEIP191, 2_000_000))
	s, _ := n.follow(evmID, hash, terminal)
	if s.State != track.StateCompletedSuccess {
		b, _ := json.Marshal(s)
		t.Fatalf("state %s: %s\n%s", s.State, b, n.events())
	}
	if got := new(big.Int).Sub(n.balance(l1ID, receiver, voucher), before); got.String() != out.AmountOut {
		t.Fatalf("%s received %s %s, the route promised %s\n%s", receiver, got, voucher, out.AmountOut, n.events())
	}
}
