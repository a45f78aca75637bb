package bridge

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
)

// vmStub records the VM messages the runner routes to it.
type vmStub struct{ got []proto.Message }

func (v *vmStub) Name() string                                              { return "stub" }
func (v *vmStub) InitGenesis(sim.Env) error                                 { return nil }
func (v *vmStub) Routes(*http.ServeMux, sim.QueryAt)                        {}
func (v *vmStub) Traffic(*rand.Rand, sim.Query, []sim.Account) []sim.Intent { return nil }
func (v *vmStub) Handlers() map[string]sim.Handler {
	rec := func(_ sim.Env, m proto.Message) error { v.got = append(v.got, m); return nil }
	return map[string]sim.Handler{"/initia.move.v1.MsgExecute": rec, "/initia.move.v1.MsgExecuteJSON": rec,
		"/minievm.evm.v1.MsgCall": rec, "/cosmwasm.wasm.v1.MsgExecuteContract": rec}
}

func TestHookRunnerMessages(t *testing.T) {
	stub := &vmStub{}
	h := NewHookRunner("c-1", stub)
	c, _ := simtest.Boot("c-1", "init", time.Unix(0, 0))
	env := c.NewEnv()
	sender := make([]byte, 32)
	senderStr := "init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqu2lkzy"
	funds := sim.Coin{Denom: "ibc/X", Amount: big.NewInt(5)}
	// The packet's coin, as the transfer app pays it to the intermediary before the hook.
	if err := env.Mint(sender, []sim.Coin{funds}); err != nil {
		t.Fatal(err)
	}
	short := make([]byte, 20)
	shortStr, err := address.Bech32("init", short)
	if err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error {
			return h.ExecIBCHook(env, "move", sender, json.RawMessage(`{"module_address":"0x1","module_name":"dex","function_name":"swap","type_args":["0x1::coin::T"],"args":["AQ=="]}`), funds)
		},
		func() error {
			return h.ExecIBCHook(env, "move", sender, json.RawMessage(`{"message_json":{"module_address":"0x1","module_name":"dex","function_name":"swap","type_args":[],"args":["\"1\""]}}`), funds)
		},
		func() error {
			return h.ExecIBCHook(env, "evm", sender, json.RawMessage(`{"contract_addr":"0xabc","input":"0x1234","value":"0","access_list":[]}`), funds)
		},
		func() error {
			return h.ExecIBCHook(env, "wasm", sender, json.RawMessage(`{"contract":"init1contract","msg":{"swap":{}}}`), funds)
		},
		func() error {
			return h.ExecIBCCallback(env, "move", sender, json.RawMessage(`{"id":"7","module_address":"0x1","module_name":"cb"}`), ibc.Callback{Success: true})
		},
		func() error {
			return h.ExecIBCCallback(env, "evm", sender, json.RawMessage(`{"id":7,"contract_address":"0xcb"}`), ibc.Callback{Success: true})
		},
		func() error {
			return h.ExecIBCCallback(env, "evm", sender, json.RawMessage(`{"id":9,"contract_address":"0xcb"}`), ibc.Callback{Timeout: true})
		},
	}
	for i, s := range steps {
		if err := s(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	word := func(v byte) string { return hex.EncodeToString(append(make([]byte, 31), v)) }
	want := []proto.Message{
		&movev1.MsgExecute{Sender: senderStr, ModuleAddress: "0x1", ModuleName: "dex", FunctionName: "swap", TypeArgs: []string{"0x1::coin::T"}, Args: [][]byte{{1}}},
		&movev1.MsgExecuteJSON{Sender: senderStr, ModuleAddress: "0x1", ModuleName: "dex", FunctionName: "swap", Args: []string{`"1"`}},
		// minievm approves the hook contract for the packet amount before the memo's call, both
		// from the 32-byte intermediary's shorthand account (its last 20 bytes).
		&evmv1.MsgCall{Sender: shortStr, ContractAddr: evm.DenomContract("ibc/X").Hex(), Value: "0",
			Input: "0x" + hex.EncodeToString(crypto.Keccak256([]byte("approve(address,uint256)"))[:4]) + "0000000000000000000000000000000000000000000000000000000000000abc" + word(5)},
		&evmv1.MsgCall{Sender: shortStr, ContractAddr: "0xabc", Input: "0x1234", Value: "0"},
		&wasmv1.MsgExecuteContract{Sender: senderStr, Contract: "init1contract", Msg: []byte(`{"swap":{}}`), Funds: nil},
		&movev1.MsgExecute{Sender: senderStr, ModuleAddress: "0x1", ModuleName: "cb", FunctionName: "ibc_ack", Args: [][]byte{{7, 0, 0, 0, 0, 0, 0, 0}, {1}}},
		&evmv1.MsgCall{Sender: senderStr, ContractAddr: "0xcb", Value: "0",
			Input: "0x" + hex.EncodeToString(crypto.Keccak256([]byte("ibc_ack(uint64,bool)"))[:4]) + word(7) + word(1)},
		&evmv1.MsgCall{Sender: senderStr, ContractAddr: "0xcb", Value: "0",
			Input: "0x" + hex.EncodeToString(crypto.Keccak256([]byte("ibc_timeout(uint64)"))[:4]) + word(9)},
	}
	if env.Balance(short, "ibc/X").Cmp(funds.Amount) != 0 || env.Balance(sender, "ibc/X").Sign() != 0 {
		t.Errorf("the packet's coin is not at the shorthand account: %s there, %s at the intermediary",
			env.Balance(short, "ibc/X"), env.Balance(sender, "ibc/X"))
	}
	if len(stub.got) != len(want) {
		t.Fatalf("%d messages", len(stub.got))
	}
	for i := range want {
		if w, ok := want[i].(*wasmv1.MsgExecuteContract); ok {
			g := stub.got[i].(*wasmv1.MsgExecuteContract)
			if g.Sender != w.Sender || g.Contract != w.Contract || string(g.Msg) != string(w.Msg) || len(g.Funds) != 1 || g.Funds[0].Amount != "5" {
				t.Errorf("wasm msg %v", g)
			}
			continue
		}
		if !proto.Equal(want[i], stub.got[i]) {
			t.Errorf("message %d:\n got %v\nwant %v", i, stub.got[i], want[i])
		}
	}
}
