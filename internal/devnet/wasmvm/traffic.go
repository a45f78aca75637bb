package wasmvm

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	tokenfactoryv1 "github.com/rollgate/rollgate/internal/chain/protos/miniwasm/tokenfactory/v1"
	"github.com/rollgate/rollgate/internal/devnet/sim"
)

// syntheticCode is a minimal Wasm module (magic, version, one custom section) whose payload
// tells the simulation which contract it stands for.
func syntheticCode(payload string) []byte {
	name := "rollgate-devnet"
	body := append([]byte{byte(len(name))}, name...)
	body = append(body, payload...)
	out := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x00}
	n := len(body)
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n != 0 {
			out = append(out, c|0x80)
			continue
		}
		out = append(out, c)
		break
	}
	return append(out, body...)
}

// CW721Code and StubCode are the code uploads the traffic generator uses.
var (
	CW721Code = syntheticCode("cw721-metadata-onchain 0.19 (simulated by the rollgate devnet)")
	StubCode  = syntheticCode("nft_receiver_stub (simulated by the rollgate devnet)")
)

type wview struct {
	cw721Code, stubCode uint64
	collections         []colView
	stubs               []string
	tokens              []tokView
	denoms              []denomView
}

type colView struct {
	addr    string
	col     collectionRec
	creator string
}

type tokView struct {
	contract string
	id       string
	owner    string
	spenders []string
}

type denomView struct{ denom, admin string }

func (m *Module) readView(q sim.Query) wview {
	var v wview
	kvs := q.Store(StoreName)
	kvs.Iterate("code/", func(k string, b []byte) bool {
		var c codeRec
		id, _ := strconv.ParseUint(strings.TrimPrefix(k, "code/"), 10, 64)
		if json.Unmarshal(b, &c) == nil {
			if c.Kind == kindCW721 && v.cw721Code == 0 {
				v.cw721Code = id
			}
			if c.Kind == kindStub && v.stubCode == 0 {
				v.stubCode = id
			}
		}
		return true
	})
	kvs.Iterate("contract/", func(k string, b []byte) bool {
		var rec contractRec
		raw, _ := hex.DecodeString(strings.TrimPrefix(k, "contract/"))
		if json.Unmarshal(b, &rec) != nil {
			return true
		}
		a := bech(q, raw)
		if rec.Kind != kindCW721 {
			v.stubs = append(v.stubs, a)
			return true
		}
		var col collectionRec
		if getJSON(kvs, keyCollection(raw), &col) {
			v.collections = append(v.collections, colView{addr: a, col: col, creator: rec.Creator})
		}
		kvs.Iterate(keyToken(raw, ""), func(tk string, tb []byte) bool {
			var t tokenRec
			if json.Unmarshal(tb, &t) == nil {
				tv := tokView{contract: a, id: strings.TrimPrefix(tk, keyToken(raw, "")), owner: t.Owner}
				for _, ap := range t.Approvals {
					tv.spenders = append(tv.spenders, ap.Spender)
				}
				v.tokens = append(v.tokens, tv)
			}
			return true
		})
		return true
	})
	kvs.Iterate("denom/", func(k string, b []byte) bool {
		var d denomRec
		if json.Unmarshal(b, &d) == nil {
			v.denoms = append(v.denoms, denomView{denom: strings.TrimPrefix(k, "denom/"), admin: d.Admin})
		}
		return true
	})
	return v
}

// Traffic implements sim.Module: one to three transactions per block from a fixed mix
// (uploads and instantiations first, then CW721 mints, transfers, send_nft to the receiver
// stub, approvals, URI updates, burns, tokenfactory denoms, multi-message txs and deliberate
// contract failures). It reads only rng and state.
func (m *Module) Traffic(rng *rand.Rand, state sim.Query, accounts []sim.Account) []sim.Intent {
	if len(accounts) < 2 {
		return nil
	}
	v := m.readView(state)
	idx := map[string]int{}
	for i, a := range accounts {
		idx[a.Bech32] = i
	}
	busy := map[string]bool{}
	var out []sim.Intent
	// Setup steps take a block each, so later intents see their results.
	switch {
	case v.cw721Code == 0:
		return []sim.Intent{{Signer: 0, GasLimit: storeGas, Msgs: []proto.Message{&wasmv1.MsgStoreCode{Sender: accounts[0].Bech32, WasmByteCode: CW721Code}}}}
	case v.stubCode == 0:
		return []sim.Intent{{Signer: 0, GasLimit: storeGas, Msgs: []proto.Message{&wasmv1.MsgStoreCode{Sender: accounts[0].Bech32, WasmByteCode: StubCode}}}}
	case len(v.stubs) == 0:
		return []sim.Intent{{Signer: 0, Msgs: []proto.Message{&wasmv1.MsgInstantiateContract{Sender: accounts[0].Bech32, Admin: accounts[0].Bech32, CodeId: v.stubCode, Label: "nft receiver stub", Msg: []byte("{}")}}}}
	}
	for range 1 + rng.IntN(3) {
		if in, ok := m.intent(rng, accounts, idx, &v, busy, state); ok {
			out = append(out, in)
		}
	}
	return out
}

func execMsg(sender, contract string, msg any, funds ...*basev1beta1.Coin) *wasmv1.MsgExecuteContract {
	b, _ := json.Marshal(msg)
	return &wasmv1.MsgExecuteContract{Sender: sender, Contract: contract, Msg: b, Funds: funds}
}

type obj = map[string]any

// storeGas covers an upload of the synthetic codes with room to spare.
const storeGas = 1_000_000

func (m *Module) intent(rng *rand.Rand, accs []sim.Account, idx map[string]int, v *wview, busy map[string]bool, state sim.Query) (sim.Intent, bool) {
	signer := rng.IntN(len(accs))
	other := (signer + 1 + rng.IntN(len(accs)-1)) % len(accs)
	me, them := accs[signer].Bech32, accs[other].Bech32
	one := func(s int, msgs ...proto.Message) (sim.Intent, bool) { return sim.Intent{Signer: s, Msgs: msgs}, true }
	pickToken := func() (tokView, int, bool) {
		for range 8 {
			if len(v.tokens) == 0 {
				break
			}
			t := v.tokens[rng.IntN(len(v.tokens))]
			if i, ok := idx[t.owner]; ok && !busy[t.contract+t.id] {
				busy[t.contract+t.id] = true
				return t, i, true
			}
		}
		return tokView{}, 0, false
	}
	mintMsg := func(c colView, to string) (*wasmv1.MsgExecuteContract, int, bool) {
		s, ok := idx[c.col.Minter]
		if !ok || busy[c.addr] {
			return nil, 0, false
		}
		busy[c.addr] = true
		id := strconv.FormatUint(c.col.Minted+1, 10)
		body := obj{"token_id": id, "owner": to, "token_uri": fmt.Sprintf("https://devnet.invalid/wasm/%s/%s.json", c.col.Symbol, id), "extension": nil}
		if rng.IntN(3) == 0 {
			body["extension"] = obj{"name": c.col.Name + " #" + id, "description": "devnet token",
				"attributes": []obj{{"trait_type": "level", "value": strconv.Itoa(rng.IntN(10)), "display_type": "number"}}}
		}
		return execMsg(c.col.Minter, c.addr, obj{"mint": body}), s, true
	}

	roll := rng.IntN(100)
	switch {
	case roll < 6 || len(v.collections) == 0:
		sym := fmt.Sprintf("D%c%c", 'A'+rune(rng.IntN(26)), 'A'+rune(rng.IntN(26)))
		init := obj{"name": "Devnet Collection " + sym, "symbol": sym, "minter": me}
		if rng.IntN(2) == 0 {
			init["collection_info_extension"] = obj{"description": "devnet collection", "image": "https://devnet.invalid/wasm/" + sym + ".png",
				"external_link": nil, "explicit_content": false, "start_trading_time": nil,
				"royalty_info": obj{"payment_address": me, "share": "0.05"}}
		}
		b, _ := json.Marshal(init)
		admin := me
		if rng.IntN(2) == 0 {
			admin = ""
		}
		return one(signer, &wasmv1.MsgInstantiateContract{Sender: me, Admin: admin, CodeId: v.cw721Code, Label: "devnet collection " + sym, Msg: b})
	case roll < 28:
		c := v.collections[rng.IntN(len(v.collections))]
		if msg, s, ok := mintMsg(c, accs[rng.IntN(len(accs))].Bech32); ok {
			return one(s, msg)
		}
	case roll < 42:
		if t, s, ok := pickToken(); ok {
			to := accs[(s+1+rng.IntN(len(accs)-1))%len(accs)].Bech32
			sender := t.owner
			// An approved spender moves the token (the fixture's h82) when there is one.
			if len(t.spenders) > 0 {
				if si, ok := idx[t.spenders[0]]; ok {
					s, sender = si, t.spenders[0]
				}
			}
			return one(s, execMsg(sender, t.contract, obj{"transfer_nft": obj{"recipient": to, "token_id": t.id}}))
		}
	case roll < 48:
		if t, s, ok := pickToken(); ok {
			return one(s, execMsg(t.owner, t.contract, obj{"send_nft": obj{"contract": v.stubs[0], "token_id": t.id, "msg": []byte(`{"note":"devnet"}`)}}))
		}
	case roll < 53:
		if t, s, ok := pickToken(); ok {
			sp := accs[(s+1)%len(accs)].Bech32
			if rng.IntN(3) == 0 {
				return one(s, execMsg(t.owner, t.contract, obj{"revoke": obj{"spender": sp, "token_id": t.id}}))
			}
			return one(s, execMsg(t.owner, t.contract, obj{"approve": obj{"spender": sp, "token_id": t.id, "expires": nil}}))
		}
	case roll < 58:
		for _, t := range v.tokens {
			for _, c := range v.collections {
				if c.addr == t.contract && !busy[t.contract+t.id] {
					if s, ok := idx[c.col.Creator]; ok {
						busy[t.contract+t.id] = true
						return one(s, execMsg(c.col.Creator, c.addr, obj{"update_nft_info": obj{"token_id": t.id,
							"token_uri": fmt.Sprintf("https://devnet.invalid/wasm/%s/%s-v%d.json", c.col.Symbol, t.id, 2+rng.IntN(8)), "extension": nil}}))
					}
				}
			}
		}
	case roll < 63:
		if t, s, ok := pickToken(); ok {
			return one(s, execMsg(t.owner, t.contract, obj{"burn": obj{"token_id": t.id}}))
		}
	case roll < 72:
		for _, d := range v.denoms {
			if d.admin == me {
				amt := strconv.Itoa(1000 + rng.IntN(1_000_000))
				if rng.IntN(3) == 0 && state.Balance(accs[signer].Addr, d.denom).Cmp(big.NewInt(1_000_000)) > 0 {
					return one(signer, &tokenfactoryv1.MsgBurn{Sender: me, Amount: &basev1beta1.Coin{Denom: d.denom, Amount: amt}})
				}
				to := them
				if rng.IntN(2) == 0 {
					to = "" // mint to the admin itself, as the fixture's first mint does
				}
				return one(signer, &tokenfactoryv1.MsgMint{Sender: me, Amount: &basev1beta1.Coin{Denom: d.denom, Amount: amt}, MintToAddress: to})
			}
		}
		in, _ := one(signer, &tokenfactoryv1.MsgCreateDenom{Sender: me, Subdenom: fmt.Sprintf("dt%d", rng.IntN(1000))})
		in.GasLimit = DenomCreationGas + 700_000 // the creation fee is paid in gas
		return in, true
	case roll < 77:
		for _, d := range v.denoms {
			bal := state.Balance(accs[signer].Addr, d.denom)
			if bal.Cmp(big.NewInt(1000)) > 0 {
				return one(signer, &bankv1beta1.MsgSend{FromAddress: me, ToAddress: them, Amount: []*basev1beta1.Coin{{Denom: d.denom, Amount: strconv.Itoa(1 + rng.IntN(1000))}}})
			}
		}
	case roll < 81:
		c := v.collections[rng.IntN(len(v.collections))]
		msg, s, ok := mintMsg(c, accs[rng.IntN(len(accs))].Bech32)
		if !ok {
			break
		}
		denom := spendable(state, accs[s].Addr)
		if denom == "" {
			return one(s, msg)
		}
		send := func() *bankv1beta1.MsgSend {
			return &bankv1beta1.MsgSend{FromAddress: accs[s].Bech32, ToAddress: accs[(s+1)%len(accs)].Bech32,
				Amount: []*basev1beta1.Coin{{Denom: denom, Amount: strconv.Itoa(1 + rng.IntN(100_000))}}}
		}
		return one(s, send(), msg, send())
	case roll < 87:
		// Deliberate contract failures (code 5, codespace wasm).
		switch rng.IntN(3) {
		case 0:
			for _, t := range v.tokens {
				if t.owner != me && !busy[t.contract+t.id] {
					busy[t.contract+t.id] = true
					return one(signer, execMsg(me, t.contract, obj{"transfer_nft": obj{"recipient": me, "token_id": t.id}}))
				}
			}
		case 1:
			c := v.collections[rng.IntN(len(v.collections))]
			if c.col.Minter != me {
				return one(signer, execMsg(me, c.addr, obj{"mint": obj{"token_id": "x" + strconv.Itoa(rng.IntN(1000)), "owner": me, "token_uri": nil, "extension": nil}}))
			}
		default:
			for _, t := range v.tokens {
				for _, c := range v.collections {
					if c.addr == t.contract {
						if s, ok := idx[c.col.Minter]; ok {
							return one(s, execMsg(c.col.Minter, c.addr, obj{"mint": obj{"token_id": t.id, "owner": c.col.Minter, "token_uri": nil, "extension": nil}}))
						}
					}
				}
			}
		}
	}
	// Default: call the receiver stub, with funds now and then.
	var funds []*basev1beta1.Coin
	if d := spendable(state, accs[signer].Addr); d != "" && rng.IntN(2) == 0 {
		funds = []*basev1beta1.Coin{{Denom: d, Amount: strconv.Itoa(1 + rng.IntN(5000))}}
	}
	return one(signer, execMsg(me, v.stubs[0], obj{"ping": obj{}}, funds...))
}

// spendable returns a native denom the account holds enough of for small payments.
func spendable(state sim.Query, addr []byte) string {
	for _, d := range []string{"umin", "uusdc"} {
		if state.Balance(addr, d).Cmp(big.NewInt(1_000_000)) > 0 {
			return d
		}
	}
	return ""
}
