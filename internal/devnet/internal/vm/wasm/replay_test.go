package wasm

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	tokenfactoryv1 "github.com/rollgate/rollgate/internal/chain/protos/miniwasm/tokenfactory/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// Fixture accounts (miniwasm README).
var acc1, acc2, acc3, acc4 = simtest.Acc1, simtest.Acc2, simtest.Acc3, simtest.Acc4

type fxCoin = simtest.Coin

// fxMsg is an x/wasm or tokenfactory message of the capture.
type fxMsg struct {
	Type          string          `json:"@type"`
	Sender        string          `json:"sender"`
	Amount        json.RawMessage `json:"amount"`
	WasmByteCode  []byte          `json:"wasm_byte_code"`
	Admin         string          `json:"admin"`
	CodeID        string          `json:"code_id"`
	Label         string          `json:"label"`
	Msg           json.RawMessage `json:"msg"`
	Funds         []fxCoin        `json:"funds"`
	Contract      string          `json:"contract"`
	Subdenom      string          `json:"subdenom"`
	MintToAddress string          `json:"mint_to_address"`
}

func protoCoins(in []fxCoin) []*basev1beta1.Coin {
	var out []*basev1beta1.Coin
	for _, c := range in {
		out = append(out, &basev1beta1.Coin{Denom: c.Denom, Amount: c.Amount})
	}
	return out
}

func toProto(t *testing.T, m fxMsg) proto.Message {
	t.Helper()
	var one fxCoin
	switch m.Type {
	case TypeMsgStoreCode:
		return &wasmv1.MsgStoreCode{Sender: m.Sender, WasmByteCode: m.WasmByteCode}
	case TypeMsgInstantiateContract:
		var id uint64
		if err := json.Unmarshal([]byte(m.CodeID), &id); err != nil {
			t.Fatal(err)
		}
		return &wasmv1.MsgInstantiateContract{Sender: m.Sender, Admin: m.Admin, CodeId: id, Label: m.Label, Msg: m.Msg, Funds: protoCoins(m.Funds)}
	case TypeMsgExecuteContract:
		return &wasmv1.MsgExecuteContract{Sender: m.Sender, Contract: m.Contract, Msg: m.Msg, Funds: protoCoins(m.Funds)}
	case TypeMsgCreateDenom:
		return &tokenfactoryv1.MsgCreateDenom{Sender: m.Sender, Subdenom: m.Subdenom}
	case TypeMsgMint:
		_ = json.Unmarshal(m.Amount, &one)
		return &tokenfactoryv1.MsgMint{Sender: m.Sender, Amount: &basev1beta1.Coin{Denom: one.Denom, Amount: one.Amount}, MintToAddress: m.MintToAddress}
	case TypeMsgBurn:
		_ = json.Unmarshal(m.Amount, &one)
		return &tokenfactoryv1.MsgBurn{Sender: m.Sender, Amount: &basev1beta1.Coin{Denom: one.Denom, Amount: one.Amount}}
	}
	t.Fatalf("unexpected %s", m.Type)
	return nil
}

func genesis(t *testing.T) (*Module, *simtest.Chain) {
	m := New()
	f := newFakeChain()
	f.Flavor = BankFlavor{}
	simtest.FundFixtureAccounts(f.Bal)
	if err := m.InitGenesis(f); err != nil {
		t.Fatal(err)
	}
	f.Commit()
	return m, f
}

// replay runs the captured miniwasm chain through the module and the plain bank flavor,
// comparing every event, message response and failure with the capture.
func replay(t *testing.T) (*Module, *simtest.Chain) {
	m, f := genesis(t)
	compared := simtest.Replay{
		Dir:          testutil.Fixture(t, "miniwasm"),
		Chain:        f,
		FeeCollector: address.ModuleAccount("fee_collector"),
		BlockTime:    true,
		Handle:       simtest.Dispatch(t, f, m.Handlers(), func(fx fxMsg) proto.Message { return toProto(t, fx) }),
	}.Run(t)
	if compared < 40 {
		t.Fatalf("only %d messages compared", compared)
	}
	return m, f
}

func TestReplayFixtureEvents(t *testing.T) { replay(t) }

// TestQueries replays every x/wasm and tokenfactory query of the capture against the
// replayed state and compares status and bytes.
func TestQueries(t *testing.T) {
	m, f := replay(t)
	mux := http.NewServeMux()
	m.Routes(mux, f.QueryAt)
	n := simtest.ReplayQueries(t, testutil.Fixture(t, "miniwasm"), mux, func(u string) bool {
		return (strings.Contains(u, "/cosmwasm/wasm/v1/") || strings.Contains(u, "/miniwasm/tokenfactory/")) &&
			!strings.Contains(u, "%%%") // rejected by net/http itself, before any handler
	}, nil)
	if n < 60 {
		t.Fatalf("only %d queries compared", n)
	}
}

func TestContractAddress(t *testing.T) {
	cases := []struct {
		code, inst uint64
		want       string
	}{
		{2, 1, "init1wug8sewp6cedgkmrmvhl3lf3tulagm9hnvy8p0rppz9yjw0g4wtq7947m6"},
		{1, 2, "init1suhgf5svhu4usrurvxzlgn54ksxmn8gljarjtxqnapv8kjnp4nrsept59e"},
		{1, 3, "init1yyca08xqdgvjz0psg56z67ejh9xms6l436u8y58m82npdqqhmmtq59l38r"},
	}
	for _, c := range cases {
		got, _ := address.Bech32("init", ContractAddress(c.code, c.inst))
		if got != c.want {
			t.Errorf("ContractAddress(%d, %d) = %s, want %s", c.code, c.inst, got, c.want)
		}
	}
	if got, _ := address.Bech32("init", address.ModuleAccount("tokenfactory")); got != "init19ejy8n9qsectrf4semdp9cpknflld0j6nka7xr" {
		t.Errorf("tokenfactory module account = %s", got)
	}
	if base64.StdEncoding.EncodeToString([]byte(`{"contract_info":{}}`)) != "eyJjb250cmFjdF9pbmZvIjp7fX0=" {
		t.Error("query encoding")
	}
}
