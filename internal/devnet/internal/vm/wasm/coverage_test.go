package wasm

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// coverageBlocks is the promise of the traffic schedule: every operation kind within it.
const coverageBlocks = 60

// TestTrafficCoversEveryOperation runs the traffic on the devnet engine with several seeds
// (21 and 22 used to go 120 blocks without a tokenfactory burn) and checks that every
// operation kind lands, successfully, within coverageBlocks blocks.
func TestTrafficCoversEveryOperation(t *testing.T) {
	e12 := big.NewInt(1_000_000_000_000)
	for _, seed := range []uint64{1, 2, 7, 21, 22, 23, 99} {
		t.Run("seed"+big.NewInt(int64(seed)).String(), func(t *testing.T) {
			c, err := engine.New(engine.Config{ChainID: "miniwasm-devnet-1", Kind: engine.KindWasm, Seed: seed, NumAccounts: 5,
				AccountCoins: []sim.Coin{{Denom: "umin", Amount: e12}, {Denom: "uusdc", Amount: e12}},
				Modules:      []sim.Module{New()}, Bank: BankFlavor{}})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for range coverageBlocks {
				b, err := c.ProduceBlock()
				if err != nil {
					t.Fatal(err)
				}
				for i, raw := range b.Txs {
					for _, op := range landedOps(t, raw, b.Results[i]) {
						seen[op]++
					}
				}
			}
			for _, op := range opNames {
				if seen[op] == 0 {
					t.Errorf("no %s in %d blocks: %v", op, coverageBlocks, seen)
				}
			}
		})
	}
}

// landedOps names the operation kinds (opNames) a tx carried out.
func landedOps(t *testing.T, raw []byte, res engine.TxResult) []string {
	t.Helper()
	tx, err := engine.DecodeTx(raw)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		if res.Codespace == Codespace && res.Code == 5 {
			return []string{"failure"}
		}
		t.Errorf("unintended failure %s %d: %s", res.Codespace, res.Code, res.Log)
		return nil
	}
	var out []string
	if len(tx.Msgs) == 3 {
		out = append(out, "multi_msg")
	}
	for _, m := range tx.Msgs {
		var msg proto.Message
		switch strings.TrimPrefix(m.TypeUrl, "/") {
		case TypeMsgInstantiateContract[1:]:
			msg = &wasmv1.MsgInstantiateContract{}
		case TypeMsgExecuteContract[1:]:
			msg = &wasmv1.MsgExecuteContract{}
		case "cosmos.bank.v1beta1.MsgSend":
			msg = &bankv1beta1.MsgSend{}
		case TypeMsgCreateDenom[1:]:
			out = append(out, "create_denom")
		case TypeMsgMint[1:]:
			out = append(out, "tf_mint")
		case TypeMsgBurn[1:]:
			out = append(out, "tf_burn")
		}
		if msg == nil {
			continue
		}
		if err := proto.Unmarshal(m.Value, msg); err != nil {
			t.Fatal(err)
		}
		switch x := msg.(type) {
		case *wasmv1.MsgInstantiateContract:
			if strings.Contains(string(x.Msg), `"minter"`) {
				out = append(out, "collection")
			}
		case *wasmv1.MsgExecuteContract:
			var top map[string]json.RawMessage
			if err := json.Unmarshal(x.Msg, &top); err != nil {
				t.Fatal(err)
			}
			for k := range top {
				out = append(out, k)
			}
		case *bankv1beta1.MsgSend:
			if strings.HasPrefix(x.Amount[0].Denom, "factory/") {
				out = append(out, "tf_send")
			}
		}
	}
	return out
}
