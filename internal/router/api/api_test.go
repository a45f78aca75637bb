package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cosmos/btcutil/bech32"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	opchildv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/price/pricetest"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/testutil"
)

const (
	l1   = "initia-devnet-1"
	mevm = "minievm-devnet-1"
	mmov = "minimove-devnet-1"
	mwas = "miniwasm-devnet-1"
	hub  = "cosmoshub-devnet-1"
	eth  = "31337"
)

var (
	initL2EVM    = registry.L2Denom(1, "uinit")
	atomL1       = registry.IBCDenom("transfer/channel-3/uatom")
	initHub      = registry.IBCDenom("transfer/channel-0/uinit")
	atomWasm     = registry.IBCDenom("transfer/channel-0/transfer/channel-3/uatom")
	usdcMoveL1   = registry.IBCDenom("transfer/channel-1/uusdc")
	usdcMoveWasm = registry.IBCDenom("transfer/channel-0/transfer/channel-1/uusdc")
	initMoveW    = registry.IBCDenom("transfer/channel-0/transfer/channel-1/" + registry.L2Denom(2, "uinit"))
	usdtEth      = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	usdtL1       = "move/"
	userInit     = addr("init", 1)
	user2Init    = addr("init", 2)
	userHub      = addr("cosmos", 3)
	userEth      = "0x00000000000000000000000000000000000000e4"
)

func addr(prefix string, b byte) string {
	s, err := bech32.EncodeFromBase256(prefix, bytes.Repeat([]byte{b}, 20))
	if err != nil {
		panic(err)
	}
	return s
}

type fakeBalances struct{}

func (fakeBalances) Balances(_ context.Context, c *registry.Chain, address string) (map[string]string, error) {
	if c.ID == hub {
		return nil, errors.New("cosmoshub-devnet-1 REST unreachable")
	}
	return map[string]string{"uinit": "1234567", atomL1: "42"}, nil
}

// devnetRegistry is the devnet's registry as the devnet writes it (kept current by
// internal/router/e2e TestDevnetRegistryCopy): the goldens describe the network the
// end-to-end test proves.
const devnetRegistry = "../registry/testdata/devnet"

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// testPrices is a price service over an oracle quoting INIT, USDC and ETH in dollars, ATOM
// too long ago (beyond the bound), and nothing for USDT, MIN or GAS: the goldens show values,
// stale prices and assets without one.
func testPrices(t testing.TB, reg *registry.Registry) *price.Service {
	t.Helper()
	at := testNow.Add(-7 * time.Second)
	o := pricetest.NewOracle(t,
		pricetest.Pair{Base: "INIT", Quote: "USD", Price: "51234567", Decimals: 8, Height: 1200, Time: at},
		pricetest.Pair{Base: "USDC", Quote: "USD", Price: "1000012000", Decimals: 9, Height: 1200, Time: at},
		pricetest.Pair{Base: "ETH", Quote: "USD", Price: "3456789012", Decimals: 6, Height: 1200, Time: at},
		pricetest.Pair{Base: "ATOM", Quote: "USD", Price: "4875000", Decimals: 6, Height: 690, Time: testNow.Add(-9 * time.Minute)},
	)
	ps, err := price.New(price.Config{OracleREST: o.URL, Now: func() time.Time { return testNow }}, func() *registry.Registry { return reg })
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.RefreshOracle(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ps
}

func newServer(t testing.TB) http.Handler {
	t.Helper()
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range reg.Chain(l1).Assets {
		if a.Symbol == "USDT" {
			usdtL1 = a.Denom
		}
	}
	cfg := Config{
		Now:          func() time.Time { return testNow },
		Balances:     fakeBalances{},
		Prices:       testPrices(t, reg),
		Route:        route.Config{LayerZeroFee: map[string]string{eth: "150000000000000", l1: "100000"}},
		MaxBodyBytes: 64 << 10,
	}
	return New(cfg, registry.NewLive(reg), nil, prometheus.NewRegistry())
}

func do(t testing.TB, h http.Handler, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd *bytes.Reader
	switch b := body.(type) {
	case nil:
		rd = bytes.NewReader(nil)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

func pretty(t *testing.T, status int, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("response is not JSON (%d): %s", status, b)
	}
	out, _ := json.MarshalIndent(map[string]any{"status": status, "body": v}, "", "  ")
	return append(out, '\n')
}

type routeCase struct {
	name      string
	req       map[string]any
	addresses []string
	hook      bool
	wantOps   int
	wantTxs   int
	wantHook  bool
}

func routeCases() []routeCase {
	rq := func(srcChain, srcDenom, dstChain, dstDenom string, extra ...any) map[string]any {
		m := map[string]any{"amount_in": "1000000", "source_asset_chain_id": srcChain, "source_asset_denom": srcDenom,
			"dest_asset_chain_id": dstChain, "dest_asset_denom": dstDenom, "some_unknown_field": 7}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	return []routeCase{
		{"same_chain_send", rq(l1, "uinit", l1, "uinit"), []string{userInit, user2Init}, false, 1, 1, false},
		{"l1_to_l2_deposit", rq(l1, "uinit", mevm, initL2EVM), []string{userInit, user2Init}, false, 1, 1, false},
		{"l2_to_l1_fast_ibc", rq(mmov, "uusdc", l1, usdcMoveL1), []string{userInit, user2Init}, false, 1, 1, false},
		{"l2_to_l1_op_withdraw", rq(mevm, initL2EVM, l1, "uinit", "is_op_withdraw", true), []string{userInit, user2Init}, false, 1, 1, false},
		// InterwovenKit's Withdraw page asks without is_op_withdraw: the withdrawal is the only way out.
		{"l2_to_l1_withdraw_without_flag", rq(mevm, initL2EVM, l1, "uinit"), []string{userInit, user2Init}, false, 1, 1, false},
		{"l2_to_l2_multihop", rq(mmov, "uusdc", mwas, usdcMoveWasm), []string{userInit, userInit, user2Init}, false, 2, 1, false},
		{"ibc_unwind_to_origin", rq(l1, atomL1, hub, "uatom"), []string{userInit, userHub}, false, 1, 1, false},
		{"ibc_unwind_two_hops", rq(mwas, atomWasm, hub, "uatom"), []string{userInit, userInit, userHub}, false, 2, 1, false},
		// rollgate's amount hook: the IBC transfer after the deposit rides in the op hook.
		{"op_hook_deposit_then_ibc", rq(l1, "uinit", mwas, initMoveW, "allow_amount_hooks", true), []string{userInit, userInit, userInit, user2Init}, true, 3, 1, true},
		// A standard client (no allow_amount_hooks) gets the same path as two transactions.
		{"deposit_then_ibc_multi_tx", rq(l1, "uinit", mwas, initMoveW, "allow_multi_tx", true), []string{userInit, userInit, userInit, user2Init}, false, 3, 2, false},
		{"layer_zero_evm_to_l1", rq(eth, usdtEth, l1, usdtL1), []string{userEth, userInit}, false, 1, 1, false},
		// The Move L1 sends with a MsgExecute of the OFT's send_withdraw.
		{"layer_zero_l1_to_evm", rq(l1, usdtL1, eth, usdtEth), []string{userInit, userEth}, false, 1, 1, false},
		// The slow withdrawal, then an IBC transfer from L1 in a second transaction.
		{"multi_tx_withdraw_then_ibc", rq(mevm, initL2EVM, hub, initHub, "is_op_withdraw", true, "allow_multi_tx", true), []string{userInit, userInit, userHub}, false, 2, 2, false},
	}
}

func signedHook(t *testing.T, signer string) map[string]any {
	t.Helper()
	inner, _ := proto.Marshal(&bankv1beta1.MsgSend{FromAddress: signer, ToAddress: signer})
	raw, err := proto.Marshal(&txv1beta1.Tx{Body: &txv1beta1.TxBody{Messages: []*anypb.Any{{TypeUrl: msgs.TypeMsgSend, Value: inner}}},
		AuthInfo: &txv1beta1.AuthInfo{}, Signatures: [][]byte{bytes.Repeat([]byte{7}, 64)}})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"signer": signer, "hook": base64.StdEncoding.EncodeToString(raw)}
}

func TestRouteAndMsgsGolden(t *testing.T) {
	h := newServer(t)
	for _, tc := range routeCases() {
		t.Run(tc.name, func(t *testing.T) {
			st, body := do(t, h, http.MethodPost, "/v2/fungible/route", tc.req)
			testutil.Golden(t, "route/"+tc.name+".json", pretty(t, st, body))
			if st != http.StatusOK {
				t.Fatalf("route status %d: %s", st, body)
			}
			var rt route.Route
			if err := json.Unmarshal(body, &rt); err != nil {
				t.Fatal(err)
			}
			if len(rt.Operations) != tc.wantOps || rt.TxsRequired != tc.wantTxs || rt.RequiredOPHook != tc.wantHook {
				t.Errorf("ops=%d txs=%d hook=%v; want %d %d %v", len(rt.Operations), rt.TxsRequired, rt.RequiredOPHook, tc.wantOps, tc.wantTxs, tc.wantHook)
			}
			if len(rt.RequiredChainAddresses) != len(tc.addresses) {
				t.Fatalf("required_chain_addresses %v for %d addresses", rt.RequiredChainAddresses, len(tc.addresses))
			}
			mreq := map[string]any{"source_asset_chain_id": rt.SourceAssetChainID, "source_asset_denom": rt.SourceAssetDenom,
				"dest_asset_chain_id": rt.DestAssetChainID, "dest_asset_denom": rt.DestAssetDenom, "amount_in": rt.AmountIn,
				"amount_out": rt.AmountOut, "address_list": tc.addresses, "slippage_tolerance_percent": "1.5",
				"operations": json.RawMessage(mustJSON(t, rt.Operations))}
			if tc.hook {
				st, hb := do(t, h, http.MethodPost, "/op-hook", map[string]any{"source_address": userInit, "dest_address": user2Init,
					"source_asset_chain_id": rt.SourceAssetChainID, "source_asset_denom": rt.SourceAssetDenom,
					"dest_asset_chain_id": rt.DestAssetChainID, "dest_asset_denom": rt.DestAssetDenom, "amount_in": rt.AmountIn,
					"allow_amount_hooks": tc.req["allow_amount_hooks"] == true})
				testutil.Golden(t, "op_hook/"+tc.name+".json", pretty(t, st, hb))
				if st != http.StatusOK {
					t.Fatalf("op-hook %d: %s", st, hb)
				}
				checkAminoRoundTrip(t, hb)
				mreq["signed_op_hook"] = signedHook(t, userInit)
			}
			st, mb := do(t, h, http.MethodPost, "/v2/fungible/msgs", mreq)
			testutil.Golden(t, "msgs/"+tc.name+".json", pretty(t, st, mb))
			if st != http.StatusOK {
				t.Fatalf("msgs %d: %s", st, mb)
			}
			checkAminoRoundTrip(t, mb)
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkAminoRoundTrip decodes every amino msg of a response into the real protobuf message,
// round-trips it through the protobuf wire format and re-encodes it: the bytes must match.
func checkAminoRoundTrip(t *testing.T, body []byte) {
	t.Helper()
	var anyBody struct {
		Txs []struct {
			CosmosTx *struct {
				Msgs []msgs.CosmosMsg `json:"msgs"`
			} `json:"cosmos_tx"`
		} `json:"txs"`
		Hook []msgs.CosmosMsg `json:"hook"`
	}
	if err := json.Unmarshal(body, &anyBody); err != nil {
		t.Fatal(err)
	}
	all := anyBody.Hook
	for _, tx := range anyBody.Txs {
		if tx.CosmosTx != nil {
			all = append(all, tx.CosmosTx.Msgs...)
		}
	}
	for _, m := range all {
		var pm proto.Message
		switch m.MsgTypeURL {
		case msgs.TypeMsgTransfer:
			pm = &transferv1.MsgTransfer{}
		case msgs.TypeMsgSend:
			pm = &bankv1beta1.MsgSend{}
		case msgs.TypeMsgInitiateTokenDeposit:
			pm = &ophostv1.MsgInitiateTokenDeposit{}
		case msgs.TypeMsgInitiateTokenWithdrawal:
			pm = &opchildv1.MsgInitiateTokenWithdrawal{}
		case msgs.TypeMsgCall:
			pm = &evmv1.MsgCall{}
		case msgs.TypeMsgExecute:
			pm = &movev1.MsgExecute{}
		default:
			t.Fatalf("unexpected type url %s", m.MsgTypeURL)
		}
		if err := txcodec.UnmarshalAminoInto([]byte(m.Msg), pm); err != nil {
			t.Fatalf("%s: %v", m.MsgTypeURL, err)
		}
		// Wallets look the message up by its registered amino name and decode the
		// {"type","value"} form: same message.
		name, ok := txcodec.AminoName(pm)
		if !ok {
			t.Fatalf("%s has no amino name", m.MsgTypeURL)
		}
		byName, err := txcodec.UnmarshalAmino(name, []byte(`{"type":"`+name+`","value":`+m.Msg+`}`))
		if err != nil || !proto.Equal(byName, pm) {
			t.Fatalf("%s by amino name %s: %v", m.MsgTypeURL, name, err)
		}
		wire, err := proto.Marshal(pm)
		if err != nil {
			t.Fatal(err)
		}
		back := pm.ProtoReflect().New().Interface()
		if err := proto.Unmarshal(wire, back); err != nil {
			t.Fatal(err)
		}
		again, err := txcodec.MarshalAminoValue(back)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != m.Msg {
			t.Errorf("%s does not round-trip:\n got %s\nwant %s", m.MsgTypeURL, again, m.Msg)
		}
	}
}

func TestEndpointsGolden(t *testing.T) {
	h := newServer(t)
	for _, tc := range []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"chains", http.MethodGet, "/v2/info/chains", nil, 200},
		{"chains_include_evm", http.MethodGet, "/v2/info/chains?include_evm=true", nil, 200},
		{"chains_filtered", http.MethodGet, "/v2/info/chains?chain_ids=" + mevm + "&chain_ids=" + eth, nil, 200},
		{"chains_unknown", http.MethodGet, "/v2/info/chains?chain_ids=nope-1", nil, 404},
		{"chains_bad_bool", http.MethodGet, "/v2/info/chains?include_evm=maybe", nil, 400},
		{"assets", http.MethodGet, "/v2/fungible/assets", nil, 200},
		{"assets_evm_chain", http.MethodGet, "/v2/fungible/assets?chain_ids=" + eth, nil, 200},
		{"assets_native_only", http.MethodGet, "/v2/fungible/assets?native_only=true&chain_ids=" + l1, nil, 200},
		{"bridges", http.MethodGet, "/v2/info/bridges", nil, 200},
		{"balances", http.MethodPost, "/v2/info/balances", map[string]any{"chains": map[string]any{
			l1:   map[string]any{"address": userInit, "denoms": []string{"uinit", atomL1, "uunknown"}},
			mevm: map[string]any{"address": userInit, "denoms": []string{}},
			hub:  map[string]any{"address": userHub, "denoms": []string{"uatom"}}}}, 200},
		{"balances_bad_address", http.MethodPost, "/v2/info/balances", map[string]any{"chains": map[string]any{
			l1: map[string]any{"address": userHub}}}, 400},
		{"balances_unknown_chain", http.MethodPost, "/v2/info/balances", map[string]any{"chains": map[string]any{
			"nope-1": map[string]any{"address": userHub}}}, 404},
		{"assets_from_source", http.MethodPost, "/v2/fungible/assets_from_source", map[string]any{"source_asset_chain_id": l1, "source_asset_denom": "uinit"}, 200},
		{"assets_from_source_multi_tx", http.MethodPost, "/v2/fungible/assets_from_source", map[string]any{"source_asset_chain_id": eth, "source_asset_denom": usdtEth, "allow_multi_tx": true}, 200},
		{"assets_from_source_unknown", http.MethodPost, "/v2/fungible/assets_from_source", map[string]any{"source_asset_chain_id": l1, "source_asset_denom": "ufoo"}, 404},
		{"msgs_direct", http.MethodPost, "/v2/fungible/msgs_direct", map[string]any{"amount_in": "2500", "source_asset_chain_id": mmov, "source_asset_denom": "uusdc",
			"dest_asset_chain_id": mwas, "dest_asset_denom": usdcMoveWasm, "chain_ids_to_addresses": map[string]string{mmov: userInit, l1: userInit, mwas: user2Init}}, 200},
		{"msgs_direct_missing_address", http.MethodPost, "/v2/fungible/msgs_direct", map[string]any{"amount_in": "2500", "source_asset_chain_id": mmov, "source_asset_denom": "uusdc",
			"dest_asset_chain_id": mwas, "dest_asset_denom": usdcMoveWasm, "chain_ids_to_addresses": map[string]string{mmov: userInit}}, 400},
		{"healthz", http.MethodGet, "/healthz", nil, 200},
		{"unknown_path", http.MethodGet, "/v2/nope", nil, 404},
		{"wrong_method", http.MethodGet, "/v2/fungible/route", nil, 405},
		{"wrong_method_get_endpoint", http.MethodPost, "/v2/info/chains", "{}", 405},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, body := do(t, h, tc.method, tc.path, tc.body)
			if st != tc.want {
				t.Errorf("status %d, want %d: %s", st, tc.want, body)
			}
			testutil.Golden(t, "endpoints/"+tc.name+".json", pretty(t, st, body))
		})
	}
}

func TestRouteErrors(t *testing.T) {
	h := newServer(t)
	base := func(kv ...any) map[string]any {
		m := map[string]any{"amount_in": "1000000", "source_asset_chain_id": l1, "source_asset_denom": "uinit",
			"dest_asset_chain_id": mevm, "dest_asset_denom": initL2EVM}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
				continue
			}
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		reason string
	}{
		{"unknown_source_chain", base("source_asset_chain_id", "nope-1"), 404, "UNKNOWN_CHAIN"},
		{"unknown_dest_chain", base("dest_asset_chain_id", "nope-1"), 404, "UNKNOWN_CHAIN"},
		{"unknown_source_denom", base("source_asset_denom", "ufoo"), 404, "UNKNOWN_ASSET"},
		{"unknown_dest_denom", base("dest_asset_denom", "ufoo"), 404, "UNKNOWN_ASSET"},
		{"amount_zero", base("amount_in", "0"), 400, "AMOUNT_TOO_LOW"},
		{"amount_negative", base("amount_in", "-5"), 400, "AMOUNT_TOO_LOW"},
		{"amount_decimal", base("amount_in", "1.5"), 400, "INVALID_AMOUNT"},
		{"amount_hex", base("amount_in", "0x10"), 400, "INVALID_AMOUNT"},
		{"amount_number", base("amount_in", 100), 400, "INVALID_JSON"},
		{"amount_2_256", base("amount_in", "115792089237316195423570985008687907853269984665640564039457584007913129639936"), 400, "AMOUNT_TOO_HIGH"},
		{"amount_missing", base("amount_in", nil), 400, "MISSING_FIELD"},
		{"source_chain_missing", base("source_asset_chain_id", nil), 400, "MISSING_FIELD"},
		{"no_route_bridges", base("bridges", []string{"LAYER_ZERO"}), 400, "NO_ROUTE"},
		{"unknown_bridge", base("bridges", []string{"WORMHOLE"}), 400, "INVALID_BRIDGE"},
		// Without is_op_withdraw the withdrawal answers (routeCases: l2_to_l1_withdraw_without_flag),
		// unless the request leaves the OPinit bridge out.
		{"no_route_without_op_withdraw", base("source_asset_chain_id", mevm, "source_asset_denom", initL2EVM, "dest_asset_chain_id", l1, "dest_asset_denom", "uinit", "bridges", []string{"IBC"}), 400, "NO_ROUTE"},
		{"op_withdraw_from_l1", base("dest_asset_chain_id", l1, "dest_asset_denom", atomL1, "is_op_withdraw", true), 400, "NO_ROUTE"},
		{"no_route_needs_multi_tx", base("source_asset_chain_id", mevm, "source_asset_denom", initL2EVM, "dest_asset_chain_id", hub, "dest_asset_denom", initHub, "is_op_withdraw", true), 400, "NO_ROUTE"},
		{"no_route_amount_hook_only", base("dest_asset_chain_id", mwas, "dest_asset_denom", initMoveW), 400, "NO_ROUTE"},
		{"no_route_multi_tx", base("source_asset_chain_id", eth, "source_asset_denom", usdtEth, "dest_asset_chain_id", hub, "dest_asset_denom", "uatom"), 400, "NO_ROUTE"},
		{"invalid_json", "{not json", 400, "INVALID_JSON"},
		{"body_too_large", `{"amount_in":"` + strings.Repeat("1", 70<<10) + `"}`, 413, "BODY_TOO_LARGE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, body := do(t, h, http.MethodPost, "/v2/fungible/route", tc.body)
			checkError(t, st, body, tc.status, tc.reason)
			testutil.Golden(t, "route_errors/"+tc.name+".json", pretty(t, st, body))
		})
	}
}

func checkError(t *testing.T, st int, body []byte, status int, reason string) {
	t.Helper()
	var e struct {
		Code    int      `json:"code"`
		Message string   `json:"message"`
		Details []string `json:"details"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body is not JSON: %s", body)
	}
	if st != status || len(e.Details) == 0 || e.Details[0] != reason || e.Message == "" {
		t.Errorf("got %d %v %q, want %d %s", st, e.Details, e.Message, status, reason)
	}
	if wantCode := map[int]int{400: 3, 404: 5, 413: 8, 503: 14}[status]; e.Code != wantCode {
		t.Errorf("code %d, want %d", e.Code, wantCode)
	}
}

func TestMsgsErrors(t *testing.T) {
	h := newServer(t)
	routeOf := func(req map[string]any) route.Route {
		st, body := do(t, h, http.MethodPost, "/v2/fungible/route", req)
		if st != 200 {
			t.Fatalf("route: %s", body)
		}
		var rt route.Route
		_ = json.Unmarshal(body, &rt)
		return rt
	}
	multi := routeOf(map[string]any{"amount_in": "1000000", "source_asset_chain_id": mmov, "source_asset_denom": "uusdc", "dest_asset_chain_id": mwas, "dest_asset_denom": usdcMoveWasm})
	hooked := routeOf(map[string]any{"amount_in": "1000000", "source_asset_chain_id": l1, "source_asset_denom": "uinit", "dest_asset_chain_id": mwas, "dest_asset_denom": initMoveW, "allow_amount_hooks": true})
	req := func(rt route.Route, addrs []string, mut func(ops []route.Operation), kv ...any) map[string]any {
		ops := append([]route.Operation(nil), rt.Operations...)
		for i := range ops {
			if ops[i].Transfer != nil {
				c := *ops[i].Transfer
				ops[i].Transfer = &c
			}
		}
		if mut != nil {
			mut(ops)
		}
		m := map[string]any{"source_asset_chain_id": rt.SourceAssetChainID, "source_asset_denom": rt.SourceAssetDenom,
			"dest_asset_chain_id": rt.DestAssetChainID, "dest_asset_denom": rt.DestAssetDenom, "amount_in": rt.AmountIn,
			"amount_out": rt.AmountOut, "address_list": addrs, "operations": ops}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	// The router offers no LayerZero send from a Cosmos chain (msgs cannot build one), yet /msgs
	// must still refuse one a client writes itself: the offered EVM→L1 hop, reversed.
	lzBack := routeOf(map[string]any{"amount_in": "1000000", "source_asset_chain_id": eth, "source_asset_denom": usdtEth, "dest_asset_chain_id": l1, "dest_asset_denom": usdtL1})
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	back := *lzBack.Operations[0].LayerZeroTransfer
	back.FromChainID, back.ToChainID, back.DenomIn, back.DenomOut = l1, eth, usdtL1, usdtEth
	back.SourceOFTContractAddress, back.DestinationEndpointID = reg.Chain(l1).Asset(usdtL1).LZ.OFT, reg.Chain(eth).LZEndpointID
	lzBack.Operations[0].LayerZeroTransfer = &back
	lzBack.SourceAssetChainID, lzBack.SourceAssetDenom, lzBack.DestAssetChainID, lzBack.DestAssetDenom = l1, usdtL1, eth, usdtEth
	good := []string{userInit, userInit, user2Init}
	shortAddr, _ := bech32.EncodeFromBase256("init", []byte{1, 2, 3})
	for _, tc := range []struct {
		name   string
		body   any
		status int
		reason string
	}{
		{"address_wrong_prefix", req(multi, []string{userInit, userInit, userHub}, nil), 400, "INVALID_ADDRESS"},
		{"address_wrong_length", req(multi, []string{userInit, shortAddr, user2Init}, nil), 400, "INVALID_ADDRESS"},
		{"address_not_bech32", req(multi, []string{userInit, "init1notanaddress", user2Init}, nil), 400, "INVALID_ADDRESS"},
		{"address_list_short", req(multi, []string{userInit, user2Init}, nil), 400, "ADDRESS_LIST_MISMATCH"},
		{"ops_wrong_channel", req(multi, good, func(o []route.Operation) { o[0].Transfer.Channel = "channel-9" }), 400, "INVALID_OPERATIONS"},
		{"ops_wrong_denom_out", req(multi, good, func(o []route.Operation) { o[1].Transfer.DenomOut = usdcMoveL1 }), 400, "INVALID_OPERATIONS"},
		{"ops_gap", req(multi, good, func(o []route.Operation) { o[1].Transfer.FromChainID = hub }), 400, "INVALID_OPERATIONS"},
		{"ops_amount_changed", req(multi, good, func(o []route.Operation) { o[1].AmountIn = "999" }), 400, "INVALID_OPERATIONS"},
		{"ops_two_variants", req(multi, good, func(o []route.Operation) { o[0].BankSend = &route.BankSend{ChainID: mmov, Denom: "uusdc"} }), 400, "INVALID_OPERATIONS"},
		{"ops_empty", req(multi, good, nil, "operations", []any{}), 400, "INVALID_OPERATIONS"},
		{"ops_wrong_source", req(multi, good, nil, "source_asset_denom", registry.L2Denom(2, "uinit")), 400, "INVALID_OPERATIONS"},
		{"amount_out_mismatch", req(multi, good, nil, "amount_out", "5"), 400, "AMOUNT_OUT_MISMATCH"},
		{"amount_in_invalid", req(multi, good, nil, "amount_in", "abc"), 400, "INVALID_AMOUNT"},
		{"slippage_invalid", req(multi, good, nil, "slippage_tolerance_percent", "101"), 400, "INVALID_SLIPPAGE"},
		{"timeout_invalid", req(multi, good, nil, "timeout_seconds", "-3"), 400, "INVALID_TIMEOUT"},
		{"unknown_chain", req(multi, good, nil, "dest_asset_chain_id", "nope-1"), 404, "UNKNOWN_CHAIN"},
		{"layer_zero_bad_evm_address", req(lzBack, []string{userInit, "0x12"}, nil), 400, "INVALID_ADDRESS"},
		{"hook_missing", req(hooked, []string{userInit, userInit, userInit, user2Init}, nil), 400, "OP_HOOK_REQUIRED"},
		{"hook_not_base64", req(hooked, []string{userInit, userInit, userInit, user2Init}, nil, "signed_op_hook", map[string]string{"signer": userInit, "hook": "%%%"}), 400, "INVALID_OP_HOOK"},
		{"hook_not_a_tx", req(hooked, []string{userInit, userInit, userInit, user2Init}, nil, "signed_op_hook", map[string]string{"signer": userInit, "hook": "AAEC"}), 400, "INVALID_OP_HOOK"},
		{"hook_wrong_signer", req(hooked, []string{userInit, userInit, userInit, user2Init}, nil, "signed_op_hook", signedHookAs(t, user2Init)), 400, "INVALID_OP_HOOK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, body := do(t, h, http.MethodPost, "/v2/fungible/msgs", tc.body)
			checkError(t, st, body, tc.status, tc.reason)
			testutil.Golden(t, "msgs_errors/"+tc.name+".json", pretty(t, st, body))
		})
	}
}

func signedHookAs(t *testing.T, signer string) map[string]any { return signedHook(t, signer) }

func TestOPHookErrors(t *testing.T) {
	h := newServer(t)
	base := func(kv ...any) map[string]any {
		m := map[string]any{"source_address": userInit, "dest_address": user2Init, "amount_in": "1000", "allow_amount_hooks": true,
			"source_asset_chain_id": l1, "source_asset_denom": "uinit", "dest_asset_chain_id": mwas, "dest_asset_denom": initMoveW}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
				continue
			}
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		reason string
	}{
		{"not_required", base("dest_asset_chain_id", mevm, "dest_asset_denom", initL2EVM), 400, ReasonHookNotNeeded},
		{"bad_dest_address", base("dest_address", userHub), 400, "INVALID_ADDRESS"},
		{"missing_source_address", base("source_address", nil), 400, "MISSING_FIELD"},
		// InterwovenKit sends no amount_in: a precise reason and what to send.
		{"missing_amount", base("amount_in", nil), 400, ReasonHookAmountRequired},
		// Without allow_amount_hooks (InterwovenKit's body) that route is not offered: no hook.
		{"standard_client_amount_hook_route", base("amount_in", nil, "allow_amount_hooks", nil), 400, ReasonHookNotNeeded},
		{"missing_amount_no_hook_needed", base("amount_in", nil, "dest_asset_chain_id", mevm, "dest_asset_denom", initL2EVM), 400, ReasonHookNotNeeded},
		{"bad_amount", base("amount_in", "1.5"), 400, "INVALID_AMOUNT"},
		{"unknown_denom", base("dest_asset_denom", "ufoo"), 404, "UNKNOWN_ASSET"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, body := do(t, h, http.MethodPost, "/op-hook", tc.body)
			checkError(t, st, body, tc.status, tc.reason)
			testutil.Golden(t, "op_hook_errors/"+tc.name+".json", pretty(t, st, body))
		})
	}
}

// TestSwaggerCoversRoutes checks /swagger/doc.json documents every path of the routes table.
func TestSwaggerCoversRoutes(t *testing.T) {
	h := newServer(t)
	st, body := do(t, h, http.MethodGet, "/swagger/doc.json", nil)
	if st != 200 {
		t.Fatalf("status %d", st)
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI == "" {
		t.Error("no openapi version")
	}
	routes := (&server{}).routes()
	for _, rt := range routes {
		if !rt.InSpec {
			continue
		}
		if _, ok := doc.Paths[rt.Path()][strings.ToLower(rt.Method())]; !ok {
			t.Errorf("swagger misses %s", rt.Pattern)
		}
	}
	for p := range doc.Paths {
		found := false
		for _, rt := range routes {
			found = found || rt.InSpec && rt.Path() == p
		}
		if !found {
			t.Errorf("swagger documents %s, which is not served", p)
		}
	}
	// Swagger UI over the document.
	if st, body := do(t, h, http.MethodGet, "/swagger/", nil); st != 200 || !strings.Contains(string(body), "swagger-ui") {
		t.Errorf("/swagger/: %d", st)
	}
	if st, body := do(t, h, http.MethodGet, "/swagger/swagger-initializer.js", nil); st != 200 || !strings.Contains(string(body), `"/swagger/doc.json"`) {
		t.Errorf("initializer: %d %.200s", st, body)
	}
}

func TestMetrics(t *testing.T) {
	h := newServer(t)
	do(t, h, http.MethodGet, "/healthz", nil)
	st, body := do(t, h, http.MethodGet, "/metrics", nil)
	if st != 200 || !strings.Contains(string(body), `rollgate_router_api_requests_total{code="200",route="GET /healthz"} 1`) {
		t.Errorf("metrics %d:\n%s", st, body)
	}
	// Two routers on one registry share the collectors (MustRegister used to panic here).
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	prom := prometheus.NewRegistry()
	a, b := New(Config{}, registry.NewLive(reg), nil, prom), New(Config{}, registry.NewLive(reg), nil, prom)
	do(t, a, http.MethodGet, "/healthz", nil)
	do(t, b, http.MethodGet, "/healthz", nil)
	if _, body := do(t, a, http.MethodGet, "/metrics", nil); !strings.Contains(string(body), `rollgate_router_api_requests_total{code="200",route="GET /healthz"} 2`) {
		t.Errorf("shared metrics:\n%s", body)
	}
}

func TestNoServerErrorOnGarbage(t *testing.T) {
	h := newServer(t)
	bodies := []string{"", "null", "[]", "123", `"x"`, `{"operations":[{}]}`, `{"operations":"x"}`, `{"address_list":[1]}`,
		`{"chains":{"x":1}}`, `{"amount_in":"1","source_asset_chain_id":"` + l1 + `","source_asset_denom":"uinit","dest_asset_chain_id":"` + l1 + `","dest_asset_denom":"uinit","operations":[{"bank_send":{}}]}`}
	for _, rt := range (&server{}).routes() {
		if rt.Method() != http.MethodPost {
			continue
		}
		for _, b := range bodies {
			st, body := do(t, h, rt.Method(), rt.Path(), b)
			if st >= 500 {
				t.Errorf("%s %q: %d %s", rt.Path(), b, st, body)
			}
			if st >= 500 {
				continue
			}
			if st >= 400 {
				var e struct{ Details []string }
				if json.Unmarshal(body, &e) != nil || len(e.Details) == 0 {
					t.Errorf("%s %q: error without reason: %s", rt.Path(), b, body)
				}
			}
		}
	}
	_ = fmt.Sprint()
}

// TestConcurrentRefresh serves routes while the registry snapshot is swapped underneath.
func TestConcurrentRefresh(t *testing.T) {
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	live := registry.NewLive(reg)
	h := New(Config{}, live, nil, prometheus.NewRegistry())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 20; i++ {
			_ = live.Refresh(context.Background(), stubSource{})
		}
	}()
	body := map[string]any{"amount_in": "5", "source_asset_chain_id": mmov, "source_asset_denom": "uusdc", "dest_asset_chain_id": mwas, "dest_asset_denom": usdcMoveWasm}
	for i := 0; i < 50; i++ {
		if st, b := do(t, h, http.MethodPost, "/v2/fungible/route", body); st != 200 {
			t.Fatalf("%d %s", st, b)
		}
	}
	<-done
}

type stubSource struct{}

func (stubSource) Bridges(context.Context, *registry.Chain) ([]registry.BridgeInfo, error) {
	return []registry.BridgeInfo{{ID: 1, FinalizationPeriod: time.Minute}}, nil
}
func (stubSource) TokenPairs(context.Context, *registry.Chain, uint64) ([]registry.TokenPair, error) {
	return []registry.TokenPair{{L1Denom: "uinit", L2Denom: registry.L2Denom(1, "uinit")}}, nil
}
func (stubSource) Channels(context.Context, *registry.Chain) ([]registry.ChannelState, error) {
	return nil, nil
}

// FuzzEndpoints: no body, on any POST endpoint, yields a 5xx, a 4xx without a reason, or an
// error body over 2 KiB (testdata/fuzz/FuzzEndpoints holds long chain ids, denoms, addresses).
// `go test -fuzz FuzzEndpoints ./internal/router/api` explores further; plain runs check the seeds.
func FuzzEndpoints(f *testing.F) {
	for _, tc := range routeCases() {
		b, _ := json.Marshal(tc.req)
		f.Add(0, string(b))
	}
	f.Add(2, `{"amount_in":"1","source_asset_chain_id":"`+mmov+`","source_asset_denom":"uusdc","dest_asset_chain_id":"`+mwas+`","dest_asset_denom":"`+usdcMoveWasm+`","address_list":["a","b","c"],"operations":[{"transfer":{"channel":"channel-0","from_chain_id":"`+mmov+`","to_chain_id":"`+l1+`"},"tx_index":0}]}`)
	f.Add(1, `{"source_address":"`+userInit+`","dest_address":"`+user2Init+`","amount_in":"1","source_asset_chain_id":"`+l1+`","source_asset_denom":"uinit","dest_asset_chain_id":"`+mwas+`","dest_asset_denom":"`+initMoveW+`"}`)
	f.Add(4, `{"chains":{"`+l1+`":{"address":"`+userInit+`","denoms":["uinit"]}}}`)
	h := newServer(f)
	var posts []string
	for _, rt := range (&server{}).routes() {
		if rt.Method() == http.MethodPost {
			posts = append(posts, rt.Path())
		}
	}
	f.Fuzz(func(t *testing.T, which int, body string) {
		if which < 0 {
			which = -which
		}
		path := posts[which%len(posts)]
		st, out := do(t, h, http.MethodPost, path, body)
		if st >= 500 {
			t.Fatalf("%s %q: %d %s", path, body, st, out)
		}
		if st >= 400 {
			var e struct{ Details []string }
			if json.Unmarshal(out, &e) != nil || len(e.Details) == 0 {
				t.Fatalf("%s %q: error without reason: %s", path, body, out)
			}
			// Whatever the body holds, the message quotes it clipped.
			if len(out) > maxErrorBody {
				t.Fatalf("%s: a %d-byte error body: %.300s", path, len(out), out)
			}
		}
	})
}

// readCounter is a request body that counts what was read of it.
type readCounter struct {
	r io.Reader
	n int
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestBodyTooLarge: a body announced larger than the limit is a 413 before a byte of it is
// read; one without a length (chunked) is a 413 once the limit is passed, having read no more.
func TestBodyTooLarge(t *testing.T) {
	h := newServer(t)
	const limit = 64 << 10
	for _, tc := range []struct {
		name     string
		length   int64
		maxRead  int
		bodySize int
	}{
		{"announced", 1 << 30, 0, 1 << 20},
		{"chunked", -1, limit + 1, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &readCounter{r: strings.NewReader(`{"amount_in":"` + strings.Repeat("1", tc.bodySize) + `"}`)}
			req := httptest.NewRequest(http.MethodPost, "/v2/fungible/route", body)
			req.ContentLength = tc.length
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d, want 413: %s", rec.Code, rec.Body)
			}
			if body.n > tc.maxRead {
				t.Errorf("read %d bytes of the body, want at most %d", body.n, tc.maxRead)
			}
		})
	}
}
