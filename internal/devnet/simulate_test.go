package devnet_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	secp256k1pb "github.com/rollgate/rollgate/internal/chain/protos/cosmos/crypto/secp256k1"
	signingv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/signing/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
)

// kitSimulateTx is the tx InterwovenKit simulates before signing
// (packages/interwovenkit-react/src/data/tx.ts simulateTx → cosmjs QueryClient.tx.simulate):
// an empty fee, one signer info with a plain secp256k1 key (encodeSecp256k1Pubkey, whatever
// the chain's key type), SIGN_MODE_UNSPECIFIED, the account's sequence and an empty signature.
func kitSimulateTx(t *testing.T, pub []byte, seq uint64, msgs ...proto.Message) []byte {
	t.Helper()
	var anys []*anypb.Any
	for _, m := range msgs {
		a, err := anypb.New(m)
		if err != nil {
			t.Fatal(err)
		}
		a.TypeUrl = "/" + string(proto.MessageName(m))
		anys = append(anys, a)
	}
	pk, _ := proto.Marshal(&secp256k1pb.PubKey{Key: pub})
	tx := &txv1beta1.Tx{
		Body: &txv1beta1.TxBody{Messages: anys},
		AuthInfo: &txv1beta1.AuthInfo{Fee: &txv1beta1.Fee{}, SignerInfos: []*txv1beta1.SignerInfo{{
			PublicKey: &anypb.Any{TypeUrl: "/cosmos.crypto.secp256k1.PubKey", Value: pk},
			ModeInfo: &txv1beta1.ModeInfo{Sum: &txv1beta1.ModeInfo_Single_{Single: &txv1beta1.ModeInfo_Single{
				Mode: signingv1beta1.SignMode_SIGN_MODE_UNSPECIFIED}}},
			Sequence: seq,
		}}},
		Signatures: [][]byte{{}},
	}
	raw, err := proto.Marshal(tx)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// abciSimulate calls abci_query /cosmos.tx.v1beta1.Service/Simulate with a SimulateRequest
// {tx_bytes} as cosmjs does, returning the response's code, log and gas used.
func abciSimulate(t *testing.T, rpc string, raw []byte) (code int, log string, gasWanted, gasUsed uint64) {
	t.Helper()
	req := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), raw)
	_, body := get(t, rpc+`/abci_query?path=`+url.QueryEscape(`"/cosmos.tx.v1beta1.Service/Simulate"`)+"&data=0x"+hex.EncodeToString(req))
	var r struct {
		Result struct {
			Response struct {
				Code  int
				Log   string
				Value []byte
			}
		}
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("abci_query: %s", body)
	}
	resp := r.Result.Response
	if resp.Code != 0 {
		return resp.Code, resp.Log, 0, 0
	}
	gas := protoField(t, resp.Value, 1)
	wanted, _ := protowire.ConsumeVarint(protoField(t, gas, 1))
	used, _ := protowire.ConsumeVarint(protoField(t, gas, 2))
	if len(protoField(t, resp.Value, 2)) == 0 {
		t.Errorf("simulate response without a result: %x", resp.Value)
	}
	return 0, "", wanted, used
}

// protoField is the raw value of field num of a message (its bytes, or a varint's encoding).
func protoField(t *testing.T, b []byte, num protowire.Number) []byte {
	t.Helper()
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			t.Fatalf("bad protobuf %x", b)
		}
		b = b[l:]
		m := protowire.ConsumeFieldValue(n, typ, b)
		if n == num {
			if typ == protowire.BytesType {
				v, _ := protowire.ConsumeBytes(b)
				return v
			}
			return b[:m]
		}
		b = b[m:]
	}
	return nil
}

// TestSimulate: on each kind of chain, the kit's simulation of a MsgSend to a fresh address
// answers over abci_query and REST with the same gas, changes nothing, and the signed tx
// then delivers within that gas and with the events the simulation showed (on a Move chain
// the new primary store's events too: the simulation did not use them up); a wrong sequence
// fails as the SDK's tx service words it.
func TestSimulate(t *testing.T) {
	net := startNet(t, 21, 2,
		devnet.ChainSpec{ChainID: "l1-sim-1", Kind: devnet.KindL1},
		devnet.ChainSpec{ChainID: "evm-sim-1", Kind: devnet.KindEVM},
		devnet.ChainSpec{ChainID: "wasm-sim-1", Kind: devnet.KindWasm})
	for _, c := range net.Chains() {
		t.Run(c.ID(), func(t *testing.T) {
			eng := c.Engine()
			k := eng.Key(5)
			from := engine.Bech32("init", k.Address())
			to := engine.Bech32("init", []byte(strings.Repeat("\x42", 19)+c.ID()[:1]))
			denom := eng.Config().FeeDenom
			msg := &bankv1beta1.MsgSend{FromAddress: from, ToAddress: to, Amount: []*basev1beta1.Coin{{Denom: denom, Amount: "777"}}}
			num, seq, _ := eng.AccountState(k.Address())
			other := eng.Key(6) // a key that is not the sender's: simulation takes the signer from the message
			raw := kitSimulateTx(t, other.PubKey(), seq, msg)

			code, log, wanted, gas := abciSimulate(t, c.RPC(), raw)
			if code != 0 || gas == 0 || wanted != 18446744073709551615 {
				t.Fatalf("abci simulate: code %d %s, gas %d of %d", code, log, gas, wanted)
			}
			status, body := post(t, c.REST()+"/cosmos/tx/v1beta1/simulate", map[string]string{"tx_bytes": base64.StdEncoding.EncodeToString(raw)})
			var rest struct {
				GasInfo struct {
					GasWanted string `json:"gas_wanted"`
					GasUsed   string `json:"gas_used"`
				} `json:"gas_info"`
				Result struct {
					Events []struct {
						Type       string
						Attributes []struct{ Key, Value string }
					}
				}
			}
			if err := json.Unmarshal(body, &rest); status != 200 || err != nil || rest.GasInfo.GasUsed != strconv.FormatUint(gas, 10) {
				t.Fatalf("REST simulate %d: %s (abci gas %d)", status, body, gas)
			}
			if bal := balanceOf(t, c, to, denom); bal != "0" {
				t.Fatalf("the simulation moved coins: %s", bal)
			}
			if _, s2, _ := eng.AccountState(k.Address()); s2 != seq {
				t.Fatalf("the simulation bumped the sequence %d → %d", seq, s2)
			}

			signed := signSend(t, eng, k, num, seq, to, denom, 777)
			if _, code, log := c.Broadcast(signed); code != 0 {
				t.Fatalf("broadcast: %d %s", code, log)
			}
			if err := net.ProduceBlock(t.Context()); err != nil {
				t.Fatal(err)
			}
			if bal := balanceOf(t, c, to, denom); bal != "777" {
				t.Fatalf("after the send %s holds %s", to, bal)
			}
			_, txBody := get(t, fmt.Sprintf("%s/tx?hash=0x%X", c.RPC(), sha(signed)))
			var tx struct {
				Result struct {
					TxResult struct {
						GasUsed string `json:"gas_used"`
						Events  []struct {
							Type       string
							Attributes []struct{ Key, Value string }
						}
					} `json:"tx_result"`
				}
			}
			if err := json.Unmarshal(txBody, &tx); err != nil {
				t.Fatal(err)
			}
			delivered, _ := strconv.ParseUint(tx.Result.TxResult.GasUsed, 10, 64)
			if delivered == 0 || delivered > gas || gas-delivered > gas/20 {
				t.Errorf("delivered gas %d, simulated %d: want at most the simulated, within 5%%", delivered, gas)
			}
			// The message events (after the ante's fee and signature events) are the simulation's.
			msgEvents := func(evs []struct {
				Type       string
				Attributes []struct{ Key, Value string }
			}) string {
				var out []string
				on := false
				for _, e := range evs {
					on = on || e.Type == "message"
					if on {
						b, _ := json.Marshal(e)
						out = append(out, string(b))
					}
				}
				return strings.Join(out, "\n")
			}
			if a, b := msgEvents(rest.Result.Events), msgEvents(tx.Result.TxResult.Events); a != b || a == "" {
				t.Errorf("simulated events\n%s\ndelivered\n%s", a, b)
			}

			_, s3, _ := eng.AccountState(k.Address())
			code, log, _, _ = abciSimulate(t, c.RPC(), kitSimulateTx(t, k.PubKey(), s3+3, msg))
			if code != 6 || !strings.HasPrefix(log, fmt.Sprintf("rpc error: code = Unknown desc = account sequence mismatch, expected %d, got %d: incorrect account sequence With gas wanted: '18446744073709551615' and gas used: '", s3, s3+3)) || !strings.HasSuffix(log, ": unknown request") {
				t.Errorf("wrong sequence over abci: %d %s", code, log)
			}
			status, body = post(t, c.REST()+"/cosmos/tx/v1beta1/simulate", map[string]string{"tx_bytes": base64.StdEncoding.EncodeToString(kitSimulateTx(t, k.PubKey(), s3+3, msg))})
			if status != 500 || !strings.Contains(string(body), `"code":2, "message":"account sequence mismatch`) {
				t.Errorf("wrong sequence over REST: %d %s", status, body)
			}
			status, body = post(t, c.REST()+"/cosmos/tx/v1beta1/simulate", map[string]string{})
			if status != 400 || !json.Valid(body) {
				t.Errorf("no tx over REST: %d %s", status, body)
			}
		})
	}
}

// TestSimulateMoveEntryFunction: a simulated 0x1::coin::transfer to a fresh address on a
// Move chain leaves no trace: the real transfer after it still creates the recipient's
// primary store, with the store-creation events the simulation showed.
func TestSimulateMoveEntryFunction(t *testing.T) {
	net := startNet(t, 23, 1, devnet.ChainSpec{ChainID: "l1-simx-1", Kind: devnet.KindL1})
	c, _ := net.Chain("l1-simx-1")
	eng := c.Engine()
	k := eng.Key(4)
	var to move.Addr
	copy(to[12:], strings.Repeat("\x61", 20))
	meta := move.CoinMetadata("uinit")
	amt := make([]byte, 8)
	amt[0] = 0x2a
	msg := &movev1.MsgExecute{Sender: engine.Bech32("init", k.Address()), ModuleAddress: "0x1", ModuleName: "coin", FunctionName: "transfer",
		Args: [][]byte{to[:], meta[:], amt}}
	num, seq, _ := eng.AccountState(k.Address())
	status, body := post(t, c.REST()+"/cosmos/tx/v1beta1/simulate", map[string]string{"tx_bytes": base64.StdEncoding.EncodeToString(kitSimulateTx(t, k.PubKey(), seq, msg))})
	if status != 200 || !strings.Contains(string(body), "PrimaryStoreCreatedEvent") {
		t.Fatalf("simulated transfer to a fresh address: %d %s", status, body)
	}
	raw, err := engine.SignDirect(c.ID(), k, num, seq, []proto.Message{msg}, "", engine.Fee{GasLimit: 500000})
	if err != nil {
		t.Fatal(err)
	}
	if _, code, log := c.Broadcast(raw); code != 0 {
		t.Fatalf("broadcast: %d %s", code, log)
	}
	if err := net.ProduceBlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, txBody := get(t, fmt.Sprintf("%s/tx?hash=0x%X", c.RPC(), sha(raw)))
	if !strings.Contains(string(txBody), `"code":0`) || !strings.Contains(string(txBody), "PrimaryStoreCreatedEvent") {
		t.Errorf("the real transfer after the simulation: %s", txBody)
	}
}

func balanceOf(t *testing.T, c *devnet.Chain, addr, denom string) string {
	t.Helper()
	_, body := get(t, c.REST()+"/cosmos/bank/v1beta1/balances/"+addr+"/by_denom?denom="+url.QueryEscape(denom))
	var r struct{ Balance struct{ Amount string } }
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("balance: %s", body)
	}
	return r.Balance.Amount
}

// TestGasPrices: the L1 answers Initia's x/tx gas prices as InterwovenKit reads them
// (packages/interwovenkit-react/src/data/fee.ts fetchGasPrices: `{gas_prices: Coin[]}` from
// the L1's REST): its fee denom at the node's minimum price, 0 on the devnet, which takes
// txs without fees; a rollup has no such route, as on Initia.
func TestGasPrices(t *testing.T) {
	net := startNet(t, 22, 1, devnet.ChainSpec{ChainID: "l1-gas-1", Kind: devnet.KindL1}, devnet.ChainSpec{ChainID: "move-gas-1", Kind: devnet.KindMove})
	l1, _ := net.Chain("l1-gas-1")
	for path, want := range map[string]string{
		"/initia/tx/v1/gas_prices":       `{"gas_prices":[{"denom":"uinit","amount":"0.000000000000000000"}]}`,
		"/initia/tx/v1/gas_prices/uinit": `{"gas_price":{"denom":"uinit","amount":"0.000000000000000000"}}`,
	} {
		if code, body := get(t, l1.REST()+path); code != 200 || string(body) != want {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
	if code, body := get(t, l1.REST()+"/initia/tx/v1/gas_prices/uatom"); code != 500 || !strings.Contains(string(body), `"code":2`) {
		t.Errorf("unknown fee denom: %d %s", code, body)
	}
	mv, _ := net.Chain("move-gas-1")
	if code, _ := get(t, mv.REST()+"/initia/tx/v1/gas_prices"); code != 501 {
		t.Errorf("a rollup's gas_prices: %d", code)
	}
}
