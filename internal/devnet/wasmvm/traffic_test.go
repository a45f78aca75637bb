package wasmvm

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	"github.com/rollgate/rollgate/internal/devnet/sim"
	"github.com/rollgate/rollgate/internal/devnet/sim/simtest"
)

// TestTraffic: the same seed and state give the same intents; executing them covers every
// operation of the mix, with failures only where the generator means them.
func TestTraffic(t *testing.T) {
	var accs []sim.Account
	for _, a := range [][]byte{acc1, acc2, acc3, acc4} {
		b, _ := address.Bech32("init", a)
		accs = append(accs, sim.Account{Addr: a, Bech32: b})
	}
	m, f := genesis(t)
	f.Now = time.Unix(1795252706, 0)
	handlers := m.Handlers()
	rng1, rng2 := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	seen := map[string]int{}
	fails := 0
	reasons := map[string]int{}
	for range 200 {
		q, _ := f.QueryAt(nil)
		a, b := m.Traffic(rng1, q, accs), m.Traffic(rng2, q, accs)
		if len(a) != len(b) {
			t.Fatalf("same seed, %d vs %d intents", len(a), len(b))
		}
		for i := range a {
			if a[i].Signer != b[i].Signer || len(a[i].Msgs) != len(b[i].Msgs) {
				t.Fatalf("intent %d differs", i)
			}
			for j := range a[i].Msgs {
				if !proto.Equal(a[i].Msgs[j], b[i].Msgs[j]) {
					t.Fatalf("intent %d msg %d differs", i, j)
				}
			}
		}
		for _, in := range a {
			for _, msg := range in.Msgs {
				if got := msgSender(msg); got != accs[in.Signer].Bech32 {
					t.Fatalf("intent signed by %s carries a message from %s", accs[in.Signer].Bech32, got)
				}
			}
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
								if getJSON(f.KV, keyToken(ca, b.TokenID), &tok) {
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

// msgSender is the signer field of the messages the generators build.
func msgSender(m proto.Message) string {
	switch x := m.(type) {
	case interface{ GetFromAddress() string }:
		return x.GetFromAddress()
	case interface{ GetSender() string }:
		return x.GetSender()
	}
	return ""
}
