package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/rollgate/rollgate/internal/chain/address"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/wire"
	"github.com/rollgate/rollgate/internal/testutil"
)

// bridgedERC20 stands for the rollup's REST answer (contracts/by_denom) of the bridged INIT.
const bridgedERC20 = "0x1111111111111111111111111111111111111111"

type fakeContracts struct{ err error }

func (f fakeContracts) ContractByDenom(_ context.Context, c *registry.Chain, denom string) (string, error) {
	if f.err != nil {
		return "", f.err
	}
	if c.ID != mevm || denom != initL2EVM {
		return "", errors.New("unexpected lookup " + c.ID + " " + denom)
	}
	return bridgedERC20, nil
}

func wrapServer(t *testing.T, contracts ContractSource) (http.Handler, *registry.Registry) {
	t.Helper()
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }, Balances: fakeBalances{}, Contracts: contracts}
	return New(cfg, registry.NewLive(reg), nil, prometheus.NewRegistry()), reg
}

// wrappedINIT is the devnet rollup's 18-decimal INIT (the registry's wrapped asset).
func wrappedINIT(t *testing.T, reg *registry.Registry) *registry.Asset {
	t.Helper()
	for _, a := range reg.Chain(mevm).Assets {
		if a.Wrap != nil && a.Wrap.RemoteDenom == initL2EVM {
			return a
		}
	}
	t.Fatal("no wrapped INIT on " + mevm)
	return nil
}

// hookKey signs hooks in these tests; its address is the source address.
func hookKey(t *testing.T, seed string) (*txcodec.PrivKey, string) {
	t.Helper()
	k, err := txcodec.PrivKeyFromSeed(txcodec.EthSecp256k1, seed)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := address.Bech32("init", k.Address())
	return k, a
}

func signHook(t *testing.T, k *txcodec.PrivKey, hook []msgs.CosmosMsg) []byte {
	t.Helper()
	b := txcodec.Builder{ChainID: mevm, GasLimit: 1, SignMode: txcodec.SignModeEIP191, Signers: []txcodec.Signer{{Key: k, AccountNumber: 9, Sequence: 3}}}
	for _, m := range hook {
		var c evmv1.MsgCall
		if err := txcodec.UnmarshalAminoInto([]byte(m.Msg), &c); err != nil {
			t.Fatal(err)
		}
		b.Msgs = append(b.Msgs, &c)
	}
	raw, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// The InterwovenKit flow against the API: the route to wrapped INIT needs the op hook,
// /op-hook answers the six-field body (no amount_in) with approve + toLocal, and /msgs puts
// the signed hook into the deposit's data, minted to the signer.
func TestWrapOPHook(t *testing.T) {
	h, reg := wrapServer(t, fakeContracts{})
	w := wrappedINIT(t, reg)
	k, src := hookKey(t, "wrap-user")
	st, body := do(t, h, http.MethodPost, "/v2/fungible/route", map[string]any{"amount_in": "2500000", "source_asset_chain_id": l1,
		"source_asset_denom": "uinit", "dest_asset_chain_id": mevm, "dest_asset_denom": w.Denom})
	testutil.Golden(t, "route/l1_to_evm_wrapped.json", pretty(t, st, body))
	var rt route.Route
	if err := json.Unmarshal(body, &rt); err != nil || st != http.StatusOK || !rt.RequiredOPHook || rt.AmountOut != "2500000000000000000" {
		t.Fatalf("route %d: %s", st, body)
	}
	ikBody := map[string]any{"source_address": src, "source_asset_chain_id": l1, "source_asset_denom": "uinit",
		"dest_address": user2Init, "dest_asset_chain_id": mevm, "dest_asset_denom": w.Denom}
	st, body = do(t, h, http.MethodPost, "/op-hook", ikBody)
	testutil.Golden(t, "op_hook/l1_to_evm_wrapped.json", pretty(t, st, body))
	if st != http.StatusOK {
		t.Fatalf("op-hook %d: %s", st, body)
	}
	checkAminoRoundTrip(t, body)
	var hr wire.OPHookResponse
	if err := json.Unmarshal(body, &hr); err != nil || hr.ChainID != mevm || len(hr.Hook) != 2 {
		t.Fatalf("op-hook answer %s", body)
	}
	// amount_in is still accepted and changes nothing.
	ikBody["amount_in"] = "2500000"
	if st, b2 := do(t, h, http.MethodPost, "/op-hook", ikBody); st != http.StatusOK || !bytes.Equal(b2, body) {
		t.Errorf("op-hook with amount_in: %d %s", st, b2)
	}
	for i, want := range []struct{ contract, selector, arg string }{
		{bridgedERC20, "095ea7b3", strings.ToLower(w.Wrap.Contract[2:])},
		{w.Wrap.Contract, "701dcf21", hex.EncodeToString(bytes.Repeat([]byte{2}, 20))},
	} {
		// initia.js decodes msg as proto3 JSON (fromJson, unknown fields refused).
		var c evmv1.MsgCall
		if err := protojson.Unmarshal([]byte(hr.Hook[i].Msg), &c); err != nil {
			t.Fatalf("hook[%d] is not proto3 JSON: %v", i, err)
		}
		if c.Sender != src || !strings.EqualFold(c.ContractAddr, want.contract) || c.Value != "0" ||
			!strings.HasPrefix(c.Input, "0x"+want.selector) || !strings.Contains(c.Input, want.arg) {
			t.Errorf("hook[%d] = %+v", i, &c)
		}
	}
	hook := signHook(t, k, hr.Hook)
	mreq := map[string]any{"source_asset_chain_id": l1, "source_asset_denom": "uinit", "dest_asset_chain_id": mevm, "dest_asset_denom": w.Denom,
		"amount_in": rt.AmountIn, "amount_out": rt.AmountOut, "address_list": []string{src, user2Init}, "slippage_tolerance_percent": "1",
		"operations": rt.Operations, "signed_op_hook": map[string]any{"signer": src, "hook": base64.StdEncoding.EncodeToString(hook)}}
	st, body = do(t, h, http.MethodPost, "/v2/fungible/msgs", mreq)
	testutil.Golden(t, "msgs/l1_to_evm_wrapped.json", pretty(t, st, body))
	if st != http.StatusOK {
		t.Fatalf("msgs %d: %s", st, body)
	}
	checkAminoRoundTrip(t, body)
	var mr msgs.Response
	if err := json.Unmarshal(body, &mr); err != nil || len(mr.Txs) != 1 || len(mr.Txs[0].CosmosTx.Msgs) != 1 {
		t.Fatalf("msgs answer %s", body)
	}
	var dep ophostv1.MsgInitiateTokenDeposit
	if err := txcodec.UnmarshalAminoInto([]byte(mr.Txs[0].CosmosTx.Msgs[0].Msg), &dep); err != nil {
		t.Fatal(err)
	}
	if dep.To != src || !bytes.Equal(dep.Data, hook) || dep.Amount.Amount != "2500000" || dep.Amount.Denom != "uinit" {
		t.Errorf("deposit %+v", &dep)
	}

	// Back from wrapped INIT: the source tx is approve + toRemoteAndOPWithdraw (0xb9cf3742).
	st, body = do(t, h, http.MethodPost, "/v2/fungible/route", map[string]any{"amount_in": "1000000000000000000", "source_asset_chain_id": mevm,
		"source_asset_denom": w.Denom, "dest_asset_chain_id": l1, "dest_asset_denom": "uinit", "is_op_withdraw": true})
	var back route.Route
	if err := json.Unmarshal(body, &back); err != nil || st != http.StatusOK {
		t.Fatalf("route back %d: %s", st, body)
	}
	st, body = do(t, h, http.MethodPost, "/v2/fungible/msgs", map[string]any{"source_asset_chain_id": mevm, "source_asset_denom": w.Denom,
		"dest_asset_chain_id": l1, "dest_asset_denom": "uinit", "amount_in": back.AmountIn, "amount_out": back.AmountOut,
		"address_list": []string{src, user2Init}, "operations": back.Operations})
	testutil.Golden(t, "msgs/evm_wrapped_to_l1_withdraw.json", pretty(t, st, body))
	if st != http.StatusOK {
		t.Fatalf("msgs back %d: %s", st, body)
	}
	checkAminoRoundTrip(t, body)
	if err := json.Unmarshal(body, &mr); err != nil || len(mr.Txs) != 1 || len(mr.Txs[0].CosmosTx.Msgs) != 2 ||
		!strings.Contains(mr.Txs[0].CosmosTx.Msgs[1].Msg, `"input":"0xb9cf3742`) {
		t.Fatalf("msgs back: %s", body)
	}
	// Over IBC: approve + toRemoteAndIBCTransfer (0xf787cbdd) with the channel, receiver, timeout.
	var voucher string
	for _, a := range reg.Chain(l1).Assets {
		if strings.HasSuffix(a.Path, "/"+initL2EVM) && strings.Count(a.Path, "transfer/") == 1 {
			voucher = a.Denom
		}
	}
	st, body = do(t, h, http.MethodPost, "/v2/fungible/route", map[string]any{"amount_in": "1000000000000000000", "source_asset_chain_id": mevm,
		"source_asset_denom": w.Denom, "dest_asset_chain_id": l1, "dest_asset_denom": voucher})
	var overIBC route.Route
	if err := json.Unmarshal(body, &overIBC); err != nil || st != http.StatusOK || len(overIBC.Operations) != 1 || overIBC.Operations[0].Transfer == nil {
		t.Fatalf("route over IBC %d: %s", st, body)
	}
	st, body = do(t, h, http.MethodPost, "/v2/fungible/msgs", map[string]any{"source_asset_chain_id": mevm, "source_asset_denom": w.Denom,
		"dest_asset_chain_id": l1, "dest_asset_denom": voucher, "amount_in": overIBC.AmountIn, "amount_out": overIBC.AmountOut,
		"address_list": []string{src, user2Init}, "operations": overIBC.Operations})
	testutil.Golden(t, "msgs/evm_wrapped_to_l1_ibc.json", pretty(t, st, body))
	if err := json.Unmarshal(body, &mr); err != nil || st != http.StatusOK || len(mr.Txs) != 1 || len(mr.Txs[0].CosmosTx.Msgs) != 2 ||
		!strings.Contains(mr.Txs[0].CosmosTx.Msgs[1].Msg, `"input":"0xf787cbdd`) {
		t.Fatalf("msgs over IBC: %d %s", st, body)
	}
	// A wrapped amount that is not whole 6-decimal units cannot be converted.
	ops := mustJSON(t, back.Operations)
	ops = bytes.ReplaceAll(ops, []byte(`"1000000000000000000"`), []byte(`"1000000000000000001"`))
	st, body = do(t, h, http.MethodPost, "/v2/fungible/msgs", map[string]any{"source_asset_chain_id": mevm, "source_asset_denom": w.Denom,
		"dest_asset_chain_id": l1, "dest_asset_denom": "uinit", "amount_in": "1000000000000000001",
		"address_list": []string{src, user2Init}, "operations": json.RawMessage(ops)})
	checkError(t, st, body, 400, route.ReasonInvalidAmount)
	testutil.Golden(t, "msgs_errors/wrap_dust.json", pretty(t, st, body))

	other, _ := hookKey(t, "someone-else")
	for _, tc := range []struct {
		name   string
		hook   any
		status int
		reason string
	}{
		{"wrap_hook_missing", nil, 400, msgs.ReasonOPHookRequired},
		{"wrap_hook_other_key", map[string]any{"signer": src, "hook": base64.StdEncoding.EncodeToString(signHook(t, other, hr.Hook))}, 400, msgs.ReasonInvalidOPHook},
		{"wrap_hook_not_a_tx", map[string]any{"signer": src, "hook": "AAEC"}, 400, msgs.ReasonInvalidOPHook},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]any{}
			for k, v := range mreq {
				m[k] = v
			}
			delete(m, "signed_op_hook")
			if tc.hook != nil {
				m["signed_op_hook"] = tc.hook
			}
			st, body := do(t, h, http.MethodPost, "/v2/fungible/msgs", m)
			checkError(t, st, body, tc.status, tc.reason)
			testutil.Golden(t, "msgs_errors/"+tc.name+".json", pretty(t, st, body))
		})
	}
	for _, tc := range []struct {
		name      string
		body      map[string]any
		contracts ContractSource
		status    int
		reason    string
	}{
		{"wrap_dest_32_bytes", map[string]any{"dest_address": addr32("init", 5)}, fakeContracts{}, 400, msgs.ReasonInvalidAddress},
		{"wrap_chain_unreachable", nil, fakeContracts{err: errors.New("connection refused")}, 503, ReasonHookChainUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := wrapServer(t, tc.contracts)
			b := map[string]any{}
			for k, v := range ikBody {
				b[k] = v
			}
			for k, v := range tc.body {
				b[k] = v
			}
			st, body := do(t, h, http.MethodPost, "/op-hook", b)
			checkError(t, st, body, tc.status, tc.reason)
			testutil.Golden(t, "op_hook_errors/"+tc.name+".json", pretty(t, st, body))
		})
	}
}
