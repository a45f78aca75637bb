package txcodec

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	tokenfactoryv1 "github.com/rollgate/rollgate/internal/chain/protos/miniwasm/tokenfactory/v1"
	opchildv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
)

func coin(d, a string) *basev1beta1.Coin { return &basev1beta1.Coin{Denom: d, Amount: a} }

// Expected amino JSON, written from the rules (amino names, dont_omitempty,
// legacy_coins, quoted 64-bit integers, sorted keys), for each message kind.
var aminoCases = []struct {
	name string
	msg  proto.Message
	want string
}{
	{"send", &bankv1beta1.MsgSend{FromAddress: "init1a", ToAddress: "init1b", Amount: []*basev1beta1.Coin{coin("uinit", "10"), coin("uusdc", "5")}},
		`{"type":"cosmos-sdk/MsgSend","value":{"amount":[{"amount":"10","denom":"uinit"},{"amount":"5","denom":"uusdc"}],"from_address":"init1a","to_address":"init1b"}}`},
	{"send no coins", &bankv1beta1.MsgSend{FromAddress: "init1a", ToAddress: "init1b"},
		`{"type":"cosmos-sdk/MsgSend","value":{"amount":[],"from_address":"init1a","to_address":"init1b"}}`},
	{"multisend", &bankv1beta1.MsgMultiSend{Inputs: []*bankv1beta1.Input{{Address: "init1a", Coins: []*basev1beta1.Coin{coin("u", "2")}}}, Outputs: []*bankv1beta1.Output{{Address: "init1b"}}},
		`{"type":"cosmos-sdk/MsgMultiSend","value":{"inputs":[{"address":"init1a","coins":[{"amount":"2","denom":"u"}]}],"outputs":[{"address":"init1b","coins":[]}]}}`},
	{"transfer full", &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0", Token: coin("uinit", "1000"), Sender: "init1a", Receiver: "cosmos1b",
		TimeoutHeight: &clientv1.Height{RevisionNumber: 1, RevisionHeight: 5000}, TimeoutTimestamp: 1763715600000000000, Memo: `{"forward":{"receiver":"x"}}`},
		`{"type":"cosmos-sdk/MsgTransfer","value":{"memo":"{\"forward\":{\"receiver\":\"x\"}}","receiver":"cosmos1b","sender":"init1a","source_channel":"channel-0","source_port":"transfer","timeout_height":{"revision_height":"5000","revision_number":"1"},"timeout_timestamp":"1763715600000000000","token":{"amount":"1000","denom":"uinit"}}}`},
	{"transfer zero timeout height, no memo", &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-1", Token: coin("ibc/AB", "1"), Sender: "init1a", Receiver: "init1b", TimeoutTimestamp: 18446744073709551615},
		`{"type":"cosmos-sdk/MsgTransfer","value":{"receiver":"init1b","sender":"init1a","source_channel":"channel-1","source_port":"transfer","timeout_height":{},"timeout_timestamp":"18446744073709551615","token":{"amount":"1","denom":"ibc/AB"}}}`},
	{"transfer height only", &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-1", Token: coin("u", "1"), Sender: "a", Receiver: "b", TimeoutHeight: &clientv1.Height{RevisionHeight: 7}},
		`{"type":"cosmos-sdk/MsgTransfer","value":{"receiver":"b","sender":"a","source_channel":"channel-1","source_port":"transfer","timeout_height":{"revision_height":"7"},"token":{"amount":"1","denom":"u"}}}`},
	{"deposit with data", &ophostv1.MsgInitiateTokenDeposit{Sender: "init1a", BridgeId: 16, To: "init1b", Amount: coin("uinit", "1000000"), Data: []byte{0xde, 0xad}},
		`{"type":"ophost/MsgInitiateTokenDeposit","value":{"amount":{"amount":"1000000","denom":"uinit"},"bridge_id":"16","data":"3q0=","sender":"init1a","to":"init1b"}}`},
	{"deposit no data", &ophostv1.MsgInitiateTokenDeposit{Sender: "init1a", BridgeId: 1, To: "init1b", Amount: coin("uinit", "1")},
		`{"type":"ophost/MsgInitiateTokenDeposit","value":{"amount":{"amount":"1","denom":"uinit"},"bridge_id":"1","sender":"init1a","to":"init1b"}}`},
	{"withdrawal", &opchildv1.MsgInitiateTokenWithdrawal{Sender: "init1a", To: "init1b", Amount: coin("l2/abc", "42")},
		`{"type":"opchild/MsgInitiateTokenWithdrawal","value":{"amount":{"amount":"42","denom":"l2/abc"},"sender":"init1a","to":"init1b"}}`},
	{"finalize deposit", &opchildv1.MsgFinalizeTokenDeposit{Sender: "init1e", From: "init1a", To: "init1b", Amount: coin("l2/abc", "3"), Sequence: 9, Height: 100, BaseDenom: "uinit"},
		`{"type":"opchild/MsgFinalizeTokenDeposit","value":{"amount":{"amount":"3","denom":"l2/abc"},"base_denom":"uinit","data":null,"from":"init1a","height":"100","sender":"init1e","sequence":"9","to":"init1b"}}`},
	{"finalize withdrawal", &ophostv1.MsgFinalizeTokenWithdrawal{Sender: "init1a", BridgeId: 2, OutputIndex: 3, WithdrawalProofs: [][]byte{{1}, {2}}, From: "init1b", To: "init1a", Sequence: 4, Amount: coin("uinit", "5"), Version: []byte{1}, StorageRoot: []byte{2}, LastBlockHash: []byte{3}},
		`{"type":"ophost/MsgFinalizeTokenWithdrawal","value":{"amount":{"amount":"5","denom":"uinit"},"bridge_id":"2","from":"init1b","last_block_hash":"Aw==","output_index":"3","sender":"init1a","sequence":"4","storage_root":"Ag==","to":"init1a","version":"AQ==","withdrawal_proofs":["AQ==","Ag=="]}}`},
	{"evm call", &evmv1.MsgCall{Sender: "init1a", ContractAddr: "0x1234", Input: "0xa9059cbb", Value: "0"},
		`{"type":"evm/MsgCall","value":{"access_list":null,"contract_addr":"0x1234","input":"0xa9059cbb","sender":"init1a","value":"0"}}`},
	{"evm call empty value, access list", &evmv1.MsgCall{Sender: "init1a", ContractAddr: "0x1234", AccessList: []*evmv1.AccessTuple{{Address: "0x1", StorageKeys: []string{"0x2"}}}},
		`{"type":"evm/MsgCall","value":{"access_list":[{"address":"0x1","storage_keys":["0x2"]}],"contract_addr":"0x1234","sender":"init1a","value":"0"}}`},
	{"evm create", &evmv1.MsgCreate{Sender: "init1a", Code: "0x6080", Value: "12"},
		`{"type":"evm/MsgCreate","value":{"access_list":null,"code":"0x6080","sender":"init1a","value":"12"}}`},
	{"move execute", &movev1.MsgExecute{Sender: "init1a", ModuleAddress: "0x1", ModuleName: "coin", FunctionName: "transfer", TypeArgs: []string{"0x1::coin::T"}, Args: [][]byte{{1, 2}, {}}},
		`{"type":"move/MsgExecute","value":{"args":["AQI=",null],"function_name":"transfer","module_address":"0x1","module_name":"coin","sender":"init1a","type_args":["0x1::coin::T"]}}`},
	{"move execute no args", &movev1.MsgExecute{Sender: "init1a", ModuleAddress: "0x1", ModuleName: "m", FunctionName: "f"},
		`{"type":"move/MsgExecute","value":{"function_name":"f","module_address":"0x1","module_name":"m","sender":"init1a"}}`},
	{"move execute json", &movev1.MsgExecuteJSON{Sender: "init1a", ModuleAddress: "0x1", ModuleName: "m", FunctionName: "f", Args: []string{`"1"`, `["a"]`}},
		`{"type":"move/MsgExecuteJSON","value":{"args":["\"1\"","[\"a\"]"],"function_name":"f","module_address":"0x1","module_name":"m","sender":"init1a"}}`},
	{"move publish", &movev1.MsgPublish{Sender: "init1a", CodeBytes: [][]byte{{0xa1, 0x1c}}, UpgradePolicy: movev1.UpgradePolicy_COMPATIBLE},
		`{"type":"move/MsgPublish","value":{"code_bytes":["oRw="],"sender":"init1a","upgrade_policy":1}}`},
	{"wasm execute", &wasmv1.MsgExecuteContract{Sender: "init1a", Contract: "init1c", Msg: []byte(`{"transfer_nft": {"recipient":"init1b","token_id":"1"}}`)},
		`{"type":"wasm/MsgExecuteContract","value":{"contract":"init1c","funds":[],"msg":{"transfer_nft":{"recipient":"init1b","token_id":"1"}},"sender":"init1a"}}`},
	{"wasm instantiate", &wasmv1.MsgInstantiateContract{Sender: "init1a", CodeId: 3, Label: "x", Msg: []byte(`{}`), Funds: []*basev1beta1.Coin{coin("u", "1")}},
		`{"type":"wasm/MsgInstantiateContract","value":{"code_id":"3","funds":[{"amount":"1","denom":"u"}],"label":"x","msg":{},"sender":"init1a"}}`},
	{"wasm store", &wasmv1.MsgStoreCode{Sender: "init1a", WasmByteCode: []byte{0, 0x61, 0x73, 0x6d}, InstantiatePermission: &wasmv1.AccessConfig{Permission: wasmv1.AccessType_ACCESS_TYPE_ANY_OF_ADDRESSES, Addresses: []string{"init1a"}}},
		`{"type":"wasm/MsgStoreCode","value":{"instantiate_permission":{"addresses":["init1a"],"permission":4},"sender":"init1a","wasm_byte_code":"AGFzbQ=="}}`},
	{"tokenfactory mint", &tokenfactoryv1.MsgMint{Sender: "init1a", Amount: coin("factory/init1a/x", "9")},
		`{"type":"tokenfactory/MsgMint","value":{"amount":{"amount":"9","denom":"factory/init1a/x"},"mint_to_address":"","sender":"init1a"}}`},
}

func TestMarshalAmino(t *testing.T) {
	for _, c := range aminoCases {
		got, err := MarshalAmino(c.msg)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// amino JSON → proto → amino JSON must be identical, both from the wrapper and from
// the bare value with the type URL, and both must decode to the same message.
func TestAminoRoundTrip(t *testing.T) {
	for _, c := range aminoCases {
		m, err := UnmarshalAmino(strings.Split(strings.Split(c.want, `"type":"`)[1], `"`)[0], []byte(c.want))
		if err != nil {
			t.Errorf("%s: unmarshal: %v", c.name, err)
			continue
		}
		again, err := MarshalAmino(m)
		if err != nil || string(again) != c.want {
			t.Errorf("%s: round trip:\n got %s (%v)\nwant %s", c.name, again, err, c.want)
		}
		val, err := MarshalAminoValue(c.msg)
		if err != nil {
			t.Fatal(err)
		}
		url := "/" + string(c.msg.ProtoReflect().Descriptor().FullName())
		m2, err := UnmarshalAmino(url, val)
		if err != nil {
			t.Errorf("%s: unmarshal value: %v", c.name, err)
			continue
		}
		m3 := m.ProtoReflect().New().Interface()
		if err := UnmarshalAminoInto(val, m3); err != nil || !proto.Equal(m3, m2) {
			t.Errorf("%s: UnmarshalAminoInto: %v", c.name, err)
		}
		a1, _ := PackAny(m)
		a2, _ := PackAny(m2)
		if !bytes.Equal(a1.Value, a2.Value) {
			t.Errorf("%s: wrapper and bare value decode differently:\n%v\n%v", c.name, m, m2)
		}
	}
}

func TestUnmarshalAminoLenient(t *testing.T) {
	// Skip's API emits timeout_timestamp as a bare JSON number.
	m, err := UnmarshalAmino("cosmos-sdk/MsgTransfer", []byte(`{"source_port":"transfer","source_channel":"channel-0","token":{"denom":"u","amount":"1"},"sender":"a","receiver":"b","timeout_height":{},"timeout_timestamp":1763715600000000000}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*transferv1.MsgTransfer).TimeoutTimestamp; got != 1763715600000000000 {
		t.Errorf("timeout_timestamp %d", got)
	}
	for _, bad := range []struct{ name, data string }{
		{"cosmos-sdk/MsgSend", `{"from_address":"a","nope":1}`},
		{"cosmos-sdk/MsgSend", `[1]`},
		{"cosmos-sdk/MsgNope", `{}`},
		{"/cosmos.tx.v1beta1.Tx", `{}`},
		{"ophost/MsgInitiateTokenDeposit", `{"bridge_id":"x"}`},
		{"ophost/MsgInitiateTokenDeposit", `{"data":"%%%"}`},
	} {
		if _, err := UnmarshalAmino(bad.name, []byte(bad.data)); !errors.Is(err, ErrAmino) {
			t.Errorf("UnmarshalAmino(%s, %s) = %v, want ErrAmino", bad.name, bad.data, err)
		}
	}
	if _, err := MarshalAmino(&txv1beta1.Tx{}); !errors.Is(err, ErrAmino) {
		t.Error("unnamed message marshalled")
	}
}

// The StdSignDoc layout, written out by hand from the SDK's legacy sign doc rules.
func TestAminoSignBytes(t *testing.T) {
	body := &txv1beta1.TxBody{Memo: "hi <3", TimeoutHeight: 99}
	a, _ := PackAny(&bankv1beta1.MsgSend{FromAddress: "init1a", ToAddress: "init1b", Amount: []*basev1beta1.Coin{coin("uinit", "1")}})
	body.Messages = append(body.Messages, a)
	got, err := AminoSignBytes("test-1", 7, 3, body, &txv1beta1.Fee{Amount: []*basev1beta1.Coin{coin("uinit", "5000")}, GasLimit: 200000, Granter: "init1g"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"account_number":"7","chain_id":"test-1","fee":{"amount":[{"amount":"5000","denom":"uinit"}],"gas":"200000","granter":"init1g"},"memo":"hi \u003c3","msgs":[{"type":"cosmos-sdk/MsgSend","value":{"amount":[{"amount":"1","denom":"uinit"}],"from_address":"init1a","to_address":"init1b"}}],"sequence":"3","timeout_height":"99"}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	got, _ = AminoSignBytes("c", 0, 0, &txv1beta1.TxBody{}, &txv1beta1.Fee{GasLimit: 1})
	if want := `{"account_number":"0","chain_id":"c","fee":{"amount":[],"gas":"1"},"memo":"","msgs":[],"sequence":"0"}`; string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Error("invalid json")
	}
}

// A tx signed in amino mode by the builder carries MsgTransfer's empty timeout height
// as an encoded empty submessage, like gogoproto-built txs.
func TestBuildFillsNonNullable(t *testing.T) {
	k, _ := PrivKeyFromSeed(EthSecp256k1, "x")
	from, _ := address.Bech32("init", k.Address())
	b := &Builder{ChainID: "c", GasLimit: 1, SignMode: SignModeLegacyAminoJSON,
		Msgs:    []proto.Message{&transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0", Sender: from, Receiver: "x", TimeoutTimestamp: 5}},
		Signers: []Signer{{Key: k}}}
	txBytes, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := Decode(txBytes)
	if err != nil {
		t.Fatal(err)
	}
	msg := tx.Msgs[0].(*transferv1.MsgTransfer)
	if msg.TimeoutHeight == nil || msg.Token == nil {
		t.Fatalf("non-nullable fields not encoded: %v", msg)
	}
	if err := VerifySignatures(tx, "c", func([]byte) (Account, bool) { return Account{}, true }); err != nil {
		t.Fatal(err)
	}
}

// EIP-191 sign bytes are the personal_sign envelope of the amino document; a tx built in
// that mode verifies, and fails once the document changes.
func TestEIP191(t *testing.T) {
	if got := string(EIP191SignBytes([]byte(`{"a":1}`))); got != "\x19Ethereum Signed Message:\n7{\"a\":1}" {
		t.Fatalf("sign bytes %q", got)
	}
	k, _ := PrivKeyFromSeed(EthSecp256k1, "eip191")
	from, _ := address.Bech32("init", k.Address())
	b := Builder{ChainID: "evm-1", GasLimit: 1, SignMode: SignModeEIP191,
		Msgs:    []proto.Message{&evmv1.MsgCall{Sender: from, ContractAddr: "0x1234", Input: "0x", Value: "0"}},
		Signers: []Signer{{Key: k, AccountNumber: 4, Sequence: 9}}}
	raw, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		seq  uint64
		want bool
	}{{9, true}, {10, false}} {
		err := VerifySignatures(d, "evm-1", func([]byte) (Account, bool) { return Account{Number: 4, Sequence: c.seq}, true })
		if (err == nil) != c.want {
			t.Errorf("sequence %d: err %v", c.seq, err)
		}
	}
}
