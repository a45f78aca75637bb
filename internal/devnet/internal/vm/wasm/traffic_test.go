package wasm

import (
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
)

// TestTraffic: the same seed and state give the same intents; executing them covers every
// operation of the mix, with failures only where the generator means them.
func TestTraffic(t *testing.T) {
	accs := simtest.Accounts("init", acc1, acc2, acc3, acc4)
	m, f := genesis(t)
	f.Now = time.Unix(1795252706, 0)
	handlers := m.Handlers()
	twins := simtest.NewTwins(1, 2)
	seen := map[string]int{}
	fails := 0
	reasons := map[string]int{}
	for range 200 {
		q, _ := f.QueryAt(nil)
		for _, in := range twins.Traffic(t, m, q, accs) {
			kv, bal := f.Snapshot()
			for _, msg := range in.Msgs {
				url := "/" + string(proto.MessageName(msg))
				var err error
				if s, ok := msg.(*bankv1beta1.MsgSend); ok {
					seen["MsgSend"]++
					c := s.Amount[0]
					err = f.Send(simtest.MustBech(t, "init", s.FromAddress), simtest.MustBech(t, "init", s.ToAddress), simtest.Coins(t, []simtest.Coin{{Denom: c.Denom, Amount: c.Amount}}))
				} else {
					if x, ok := msg.(*wasmv1.MsgExecuteContract); ok {
						var top map[string]json.RawMessage
						_ = json.Unmarshal(x.Msg, &top)
						for k, body := range top {
							seen[k]++
							var b struct {
								TokenID string `json:"token_id"`
							}
							if k == "transfer_nft" && json.Unmarshal(body, &b) == nil {
								var tok tokenRec
								ca, _ := address.FromBech32("init", x.Contract)
								if getJSON(f.KV(StoreName), keyToken(ca, b.TokenID), &tok) {
									for _, ap := range tok.Approvals {
										if ap.Spender == x.Sender {
											seen["transfer_nft by spender"]++
										}
									}
								}
							}
						}
					} else {
						seen[url]++
					}
					err = handlers[url](f, msg)
				}
				if err != nil {
					reasons[err.Error()]++
					fails++
					f.Restore(kv, bal)
					break
				}
			}
		}
		f.Commit()
	}
	for _, k := range []string{TypeMsgStoreCode, TypeMsgInstantiateContract, TypeMsgCreateDenom, TypeMsgMint, "mint", "transfer_nft", "transfer_nft by spender", "send_nft", "approve", "update_nft_info", "burn", "ping", "MsgSend"} {
		if seen[k] == 0 {
			t.Errorf("no %s in 200 blocks: %v", k, seen)
		}
	}
	t.Logf("%d failures %v, mix %v", fails, reasons, seen)
	for r := range reasons {
		switch r {
		case "Caller is not minter: execute wasm contract failed",
			"Caller is not the contract's current owner: execute wasm contract failed",
			"token_id already claimed: execute wasm contract failed":
		default:
			t.Errorf("unintended failure %q", r)
		}
	}
	if fails == 0 || fails > 60 {
		t.Errorf("%d failures (%v)", fails, seen)
	}
}
