package wasm

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	tokenfactoryv1 "github.com/rollgate/rollgate/internal/chain/protos/miniwasm/tokenfactory/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

func b32(b []byte) string { s, _ := address.Bech32("init", b); return s }

// Behaviour beyond the fixture's traffic: approvals and operators, revocation, receivers that
// are not contracts, creator-only updates, pagination, tokenfactory authorization, and values
// JSON encoders like to escape.
func TestContractSemantics(t *testing.T) {
	m, f := genesis(t)
	f.Now = time.Unix(1795252706, 5)
	h := m.Handlers()
	s1, s2, s3 := b32(acc1), b32(acc2), b32(acc3)
	exec := func(sender, contract, msg string) error {
		f.Events = nil
		return h[TypeMsgExecuteContract](f, &wasmv1.MsgExecuteContract{Sender: sender, Contract: contract, Msg: []byte(msg)})
	}
	if err := h[TypeMsgStoreCode](f, &wasmv1.MsgStoreCode{Sender: s1, WasmByteCode: CW721Code}); err != nil {
		t.Fatal(err)
	}
	if err := h[TypeMsgInstantiateContract](f, &wasmv1.MsgInstantiateContract{Sender: s1, CodeId: 1, Label: "c", Msg: []byte(`{"name":"N&N","symbol":"S","minter":"` + s1 + `"}`)}); err != nil {
		t.Fatal(err)
	}
	col := b32(ContractAddress(1, 1))
	steps := []struct {
		name, sender, msg, wantErr string
	}{
		{"mint", s1, `{"mint":{"token_id":"a","owner":"` + s2 + `","token_uri":"https://x.invalid/?a=1&b=<2>","extension":{"name":"n","attributes":[{"trait_type":"t","value":"v"}]}}}`, ""},
		{"mint b", s1, `{"mint":{"token_id":"b","owner":"` + s2 + `"}}`, ""},
		{"mint c", s1, `{"mint":{"token_id":"c","owner":"` + s3 + `"}}`, ""},
		{"transfer by stranger", s3, `{"transfer_nft":{"recipient":"` + s3 + `","token_id":"a"}}`, "Caller is not the contract's current owner: execute wasm contract failed"},
		{"approve", s2, `{"approve":{"spender":"` + s3 + `","token_id":"a"}}`, ""},
		{"revoke", s2, `{"revoke":{"spender":"` + s3 + `","token_id":"a"}}`, ""},
		{"transfer after revoke", s3, `{"transfer_nft":{"recipient":"` + s3 + `","token_id":"a"}}`, "Caller is not the contract's current owner: execute wasm contract failed"},
		{"approve again", s2, `{"approve":{"spender":"` + s3 + `","token_id":"a","expires":{"at_height":1000000}}}`, ""},
		{"transfer by spender", s3, `{"transfer_nft":{"recipient":"` + s1 + `","token_id":"a"}}`, ""},
		{"approve_all", s2, `{"approve_all":{"operator":"` + s3 + `"}}`, ""},
		{"burn by operator", s3, `{"burn":{"token_id":"b"}}`, ""},
		{"send_nft to an account", s3, `{"send_nft":{"contract":"` + s1 + `","token_id":"c","msg":"e30="}}`, "no such contract"},
		{"update by non-creator", s3, `{"update_nft_info":{"token_id":"c","token_uri":"x"}}`, "Caller is not creator: execute wasm contract failed"},
		{"update", s1, `{"update_nft_info":{"token_id":"c","token_uri":"u&2"}}`, ""},
		{"unknown variant", s1, `{"fly":{}}`, "unknown variant `fly`"},
		{"missing token", s1, `{"burn":{"token_id":"zz"}}`, "key: [00, 06, 74, 6F, 6B, 65, 6E, 73, 7A, 7A] not found: execute wasm contract failed"},
	}
	for _, st := range steps {
		kv, bal := f.Snapshot()
		err := exec(st.sender, col, st.msg)
		if st.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", st.name, err)
			}
			continue
		}
		var ce *sim.CodedError
		if !errors.As(err, &ce) || ce.Codespace != Codespace || !strings.Contains(ce.Log, st.wantErr) {
			t.Errorf("%s: got %v, want %q", st.name, err, st.wantErr)
		}
		f.Restore(kv, bal)
	}
	f.Commit()

	mux := http.NewServeMux()
	m.Routes(mux, f.QueryAt)
	get := func(q string) string {
		req := httptest.NewRequest(http.MethodGet, "/cosmwasm/wasm/v1/contract/"+col+"/smart/"+base64.StdEncoding.EncodeToString([]byte(q)), nil)
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		b, _ := io.ReadAll(rec.Body)
		return string(b)
	}
	queries := []struct{ q, want string }{
		{`{"nft_info":{"token_id":"a"}}`, `{"data":{"token_uri":"https://x.invalid/?a=1&b=<2>","extension":{"image":null,"image_data":null,"external_url":null,"description":null,"name":"n","attributes":[{"display_type":null,"trait_type":"t","value":"v"}],"background_color":null,"animation_url":null,"youtube_url":null}}}`},
		{`{"owner_of":{"token_id":"a"}}`, `{"data":{"owner":"` + s1 + `","approvals":[]}}`},
		{`{"num_tokens":{}}`, `{"data":{"count":2}}`},
		{`{"all_tokens":{}}`, `{"data":{"tokens":["a","c"]}}`},
		{`{"all_tokens":{"start_after":"a","limit":1}}`, `{"data":{"tokens":["c"]}}`},
		{`{"tokens":{"owner":"` + s3 + `"}}`, `{"data":{"tokens":["c"]}}`},
		{`{"nft_info":{"token_id":"c"}}`, `{"data":{"token_uri":"u&2","extension":null}}`},
		{`{"contract_info":{}}`, `{"data":{"name":"N&N","symbol":"S","extension":null,"updated_at":"1795252706000000005"}}`},
	}
	for _, q := range queries {
		if got := get(q.q); got != q.want {
			t.Errorf("%s:\n got %s\nwant %s", q.q, got, q.want)
		}
	}

	// tokenfactory
	tf := func(url string, msg proto.Message) error {
		f.Events = nil
		return h[url](f, msg)
	}
	d := FactoryDenom(s2, "zz")
	if err := tf(TypeMsgCreateDenom, &tokenfactoryv1.MsgCreateDenom{Sender: s2, Subdenom: "zz"}); err != nil {
		t.Fatal(err)
	}
	codeOf := func(err error) uint32 {
		var ce *sim.CodedError
		if errors.As(err, &ce) && ce.Codespace == "tokenfactory" {
			return ce.Code
		}
		return 0
	}
	if err := tf(TypeMsgCreateDenom, &tokenfactoryv1.MsgCreateDenom{Sender: s2, Subdenom: "zz"}); codeOf(err) != 2 {
		t.Errorf("denom created twice: %v", err)
	}
	coin := &basev1beta1.Coin{Denom: d, Amount: "10"}
	if err := tf(TypeMsgMint, &tokenfactoryv1.MsgMint{Sender: s1, Amount: coin}); codeOf(err) != 3 {
		t.Errorf("mint by a non-admin: %v", err)
	}
	if err := tf(TypeMsgMint, &tokenfactoryv1.MsgMint{Sender: s2, Amount: &basev1beta1.Coin{Denom: "factory/x/y", Amount: "1"}}); codeOf(err) != 10 {
		t.Errorf("mint of an unknown denom: %v", err)
	}
	if err := tf(TypeMsgMint, &tokenfactoryv1.MsgMint{Sender: s2, Amount: coin}); err != nil || f.Balance(acc2, d).Int64() != 10 {
		t.Errorf("mint: %v, balance %s", err, f.Balance(acc2, d))
	}
	err := tf(TypeMsgBurn, &tokenfactoryv1.MsgBurn{Sender: s2, Amount: &basev1beta1.Coin{Denom: d, Amount: "11"}})
	var ce *sim.CodedError
	if !errors.As(err, &ce) || ce.Code != 5 || ce.Log != "spendable balance 10"+d+" is smaller than 11"+d+": insufficient funds" {
		t.Errorf("burn above balance: %v", err)
	}
}
