package wasm

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	tokenfactoryv1 "github.com/rollgate/rollgate/internal/chain/protos/miniwasm/tokenfactory/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
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

// The traffic plan reaches a steady state so a devnet left running keeps a bounded state
// (and readView, which reads the module's whole store each block, a bounded cost): past
// these counts no more collections or denoms are created, a mint burns one of our tokens
// instead, and send_nft (which leaves the token with the receiver stub for good) becomes a
// transfer. The caps sit well above what the first few hundred blocks reach, so the chains
// tests and goldens look at are unchanged.
const (
	maxCollections = 32
	maxOurTokens   = 192 // tokens owned by the generator's accounts
	maxStubTokens  = 64  // tokens the receiver stub holds
	maxDenoms      = 24
)

// counts of what the caps above bound.
func (v *wview) ourTokens(idx map[string]int) (ours, other int) {
	for _, t := range v.tokens {
		if _, ok := idx[t.owner]; ok {
			ours++
		} else {
			other++
		}
	}
	return ours, other
}

// opKind is one operation of the traffic mix.
type opKind int

const (
	opCollection  opKind = iota // instantiate a CW721 collection
	opMint                      // mint an NFT
	opTransfer                  // transfer_nft (by an approved spender when there is one)
	opSendNFT                   // send_nft to the receiver stub
	opApprove                   // approve (never revoke: the captured client sent none)
	opUpdateInfo                // update_nft_info by the collection's creator
	opBurnNFT                   // burn an NFT
	opCreateDenom               // tokenfactory MsgCreateDenom
	opFactoryMint               // tokenfactory MsgMint
	opFactoryBurn               // tokenfactory MsgBurn
	opFactorySend               // bank send of a factory denom
	opMultiMsg                  // bank send, mint, bank send in one tx
	opFailure                   // a deliberate contract failure (code 5, codespace wasm)
	opPing                      // call the receiver stub, with funds now and then
	numOps
)

var opNames = [numOps]string{"collection", "mint", "transfer_nft", "send_nft", "approve", "update_nft_info", "burn",
	"create_denom", "tf_mint", "tf_burn", "tf_send", "multi_msg", "failure", "ping"}

func (k opKind) String() string {
	if k < 0 || k >= numOps {
		return "op(" + strconv.Itoa(int(k)) + ")"
	}
	return opNames[k]
}

// prerequisites is what an operation falls back to while the state cannot take it yet (no
// collection, no token, no denom): the operation that builds that state.
var prerequisites = map[opKind][]opKind{
	opMint:        {opCollection},
	opTransfer:    {opMint, opCollection},
	opSendNFT:     {opMint, opCollection},
	opApprove:     {opMint, opCollection},
	opUpdateInfo:  {opMint, opCollection},
	opBurnNFT:     {opMint, opCollection},
	opFactoryMint: {opCreateDenom},
	opFactoryBurn: {opFactoryMint, opCreateDenom},
	opFactorySend: {opFactoryMint, opCreateDenom},
	opMultiMsg:    {opCollection},
	opFailure:     {opMint, opCollection},
}

// scheduled is the operation the first intent of a block carries. The kinds run in cycles
// of numOps blocks, each cycle a permutation of all kinds, so every kind comes up once per
// cycle whatever the seed. The permutation of cycle c is drawn from the chain id, the first
// account (derived from the network's seed) and c: deterministic, different per seed and per
// cycle, and computable from any block without remembering earlier ones.
func scheduled(state sim.Query, accounts []sim.Account) opKind {
	h := state.Height()
	if h < 0 {
		h = 0
	}
	cycle, pos := uint64(h)/uint64(numOps), int(uint64(h)%uint64(numOps))
	sum := sha256.Sum256(append([]byte(state.ChainID()+"/"), accounts[0].Addr...))
	perm := rand.New(rand.NewPCG(binary.BigEndian.Uint64(sum[:8]), cycle)).Perm(int(numOps))
	return opKind(perm[pos])
}

// rolled is the operation of the other intents of a block, from a fixed mix.
func rolled(rng *rand.Rand) opKind {
	roll := rng.IntN(100)
	for _, c := range []struct {
		below int
		op    opKind
	}{
		{6, opCollection}, {28, opMint}, {42, opTransfer}, {48, opSendNFT}, {53, opApprove}, {58, opUpdateInfo},
		{63, opBurnNFT}, {66, opCreateDenom}, {69, opFactoryMint}, {72, opFactoryBurn}, {77, opFactorySend},
		{81, opMultiMsg}, {87, opFailure},
	} {
		if roll < c.below {
			return c.op
		}
	}
	return opPing
}

// Traffic implements sim.Module: one to three transactions per block. Uploads and the
// receiver stub come first (a block each); then the first transaction of every block runs the
// block's scheduled operation (see scheduled) and the others draw from a fixed mix (CW721
// mints, transfers, send_nft to the receiver stub, approvals, URI updates, burns, tokenfactory
// denoms, multi-message txs and deliberate contract failures). It reads only rng and state.
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
	g := &gen{rng: rng, accs: accounts, idx: idx, v: &v, busy: busy, state: state}
	for i := range 1 + rng.IntN(3) {
		var in sim.Intent
		var ok bool
		if i == 0 {
			op := scheduled(state, accounts)
			in, ok = g.op(op)
			for _, pre := range prerequisites[op] {
				if ok {
					break
				}
				in, ok = g.op(pre)
			}
		} else {
			in, ok = g.op(rolled(rng))
		}
		if !ok {
			in, ok = g.op(opPing)
		}
		if ok {
			out = append(out, in)
		}
	}
	return out
}

// The CW721 v0.19 messages, as structs so their keys keep the order of the contract's
// documented schema (the order the captured client sends them in).
type (
	instantiateMsg struct {
		Name                    string         `json:"name"`
		Symbol                  string         `json:"symbol"`
		CollectionInfoExtension *collectionExt `json:"collection_info_extension,omitempty"`
		Minter                  string         `json:"minter"`
		Creator                 string         `json:"creator,omitempty"`
	}
	collectionExt struct {
		Description      string     `json:"description"`
		Image            string     `json:"image"`
		ExternalLink     *string    `json:"external_link"`
		ExplicitContent  bool       `json:"explicit_content"`
		StartTradingTime *string    `json:"start_trading_time"`
		RoyaltyInfo      royaltyMsg `json:"royalty_info"`
	}
	royaltyMsg struct {
		PaymentAddress string `json:"payment_address"`
		Share          string `json:"share"`
	}
	mintMsg struct {
		TokenID   string         `json:"token_id"`
		Owner     string         `json:"owner"`
		TokenURI  *string        `json:"token_uri"`
		Extension *mintExtension `json:"extension"`
	}
	mintExtension struct {
		Name        string     `json:"name"`
		Description string     `json:"description"`
		Image       string     `json:"image"`
		Attributes  []nftTrait `json:"attributes"`
	}
	nftTrait struct {
		TraitType   string `json:"trait_type"`
		Value       string `json:"value"`
		DisplayType string `json:"display_type,omitempty"`
	}
	transferNFTMsg struct {
		Recipient string `json:"recipient"`
		TokenID   string `json:"token_id"`
	}
	sendNFTMsg struct {
		Contract string `json:"contract"`
		TokenID  string `json:"token_id"`
		Msg      []byte `json:"msg"`
	}
	approveMsg struct {
		Spender string    `json:"spender"`
		TokenID string    `json:"token_id"`
		Expires *struct{} `json:"expires"`
	}
	updateNFTInfoMsg struct {
		TokenID   string         `json:"token_id"`
		TokenURI  *string        `json:"token_uri"`
		Extension *mintExtension `json:"extension"`
	}
	burnMsg struct {
		TokenID string `json:"token_id"`
	}
	emptyMsg struct{}
)

// execMsg wraps a message body under its variant name ({"mint": {...}}).
func execMsg(sender, contract, variant string, body any, funds ...*basev1beta1.Coin) *wasmv1.MsgExecuteContract {
	b, _ := json.Marshal(map[string]any{variant: body})
	return &wasmv1.MsgExecuteContract{Sender: sender, Contract: contract, Msg: b, Funds: funds}
}

func strp(s string) *string { return &s }

// storeGas covers an upload of the synthetic codes with room to spare.
const storeGas = 1_000_000

// gen builds the intents of one block.
type gen struct {
	rng   *rand.Rand
	accs  []sim.Account
	idx   map[string]int
	v     *wview
	busy  map[string]bool
	state sim.Query
}

func (g *gen) one(s int, msgs ...proto.Message) (sim.Intent, bool) {
	return sim.Intent{Signer: s, Msgs: msgs}, true
}

// pickToken picks a token an account of ours owns and no other intent of the block uses.
func (g *gen) pickToken() (tokView, int, bool) {
	for range 8 {
		if len(g.v.tokens) == 0 {
			break
		}
		t := g.v.tokens[g.rng.IntN(len(g.v.tokens))]
		if i, ok := g.idx[t.owner]; ok && !g.busy[t.contract+t.id] {
			g.busy[t.contract+t.id] = true
			return t, i, true
		}
	}
	return tokView{}, 0, false
}

// mint builds a mint by the collection's minter.
func (g *gen) mint(c colView, to string) (*wasmv1.MsgExecuteContract, int, bool) {
	s, ok := g.idx[c.col.Minter]
	if !ok || g.busy[c.addr] {
		return nil, 0, false
	}
	g.busy[c.addr] = true
	id := strconv.FormatUint(c.col.Minted+1, 10)
	body := mintMsg{TokenID: id, Owner: to, TokenURI: strp(fmt.Sprintf("https://devnet.invalid/wasm/%s/%s.json", c.col.Symbol, id))}
	if g.rng.IntN(3) == 0 {
		body.Extension = &mintExtension{Name: c.col.Name + " #" + id, Description: "devnet token",
			Image:      fmt.Sprintf("https://devnet.invalid/wasm/%s/%s.png", c.col.Symbol, id),
			Attributes: []nftTrait{{TraitType: "level", Value: strconv.Itoa(g.rng.IntN(10)), DisplayType: "number"}}}
	}
	return execMsg(c.col.Minter, c.addr, "mint", body), s, true
}

// factoryAdmin picks a denom whose admin is one of our accounts, from a random start.
func (g *gen) factoryAdmin(ok func(d denomView, admin int) bool) (denomView, int, bool) {
	n := len(g.v.denoms)
	if n == 0 {
		return denomView{}, 0, false
	}
	start := g.rng.IntN(n)
	for i := range n {
		d := g.v.denoms[(start+i)%n]
		if s, found := g.idx[d.admin]; found && !g.busy["denom "+d.denom] && ok(d, s) {
			g.busy["denom "+d.denom] = true
			return d, s, true
		}
	}
	return denomView{}, 0, false
}

// op builds an intent of one kind, or reports that the state cannot take it now.
func (g *gen) op(kind opKind) (sim.Intent, bool) {
	rng, accs, v := g.rng, g.accs, g.v
	signer := rng.IntN(len(accs))
	me := accs[signer].Bech32
	ours, others := v.ourTokens(g.idx)
	switch {
	case kind == opCollection && len(v.collections) >= maxCollections,
		kind == opCreateDenom && len(v.denoms) >= maxDenoms:
		return sim.Intent{}, false
	case (kind == opMint || kind == opMultiMsg) && ours >= maxOurTokens:
		kind = opBurnNFT
	case kind == opSendNFT && others >= maxStubTokens:
		kind = opTransfer
	}
	switch kind {
	case opCollection:
		sym := fmt.Sprintf("D%c%c", 'A'+rune(rng.IntN(26)), 'A'+rune(rng.IntN(26)))
		init := instantiateMsg{Name: "Devnet Colección " + sym, Symbol: sym, Minter: me}
		if rng.IntN(2) == 0 {
			// as the captured client does: with a collection extension it names the creator too
			init.CollectionInfoExtension = &collectionExt{Description: "devnet collection", Image: "https://devnet.invalid/wasm/" + sym + ".png",
				RoyaltyInfo: royaltyMsg{PaymentAddress: me, Share: "0.05"}}
			init.Creator = me
		}
		b, _ := json.Marshal(init)
		admin := me
		if rng.IntN(2) == 0 {
			admin = ""
		}
		return g.one(signer, &wasmv1.MsgInstantiateContract{Sender: me, Admin: admin, CodeId: v.cw721Code, Label: "devnet collection " + sym, Msg: b})
	case opMint:
		if len(v.collections) == 0 {
			break
		}
		start := rng.IntN(len(v.collections))
		to := accs[rng.IntN(len(accs))].Bech32
		for i := range v.collections {
			if msg, s, ok := g.mint(v.collections[(start+i)%len(v.collections)], to); ok {
				return g.one(s, msg)
			}
		}
	case opTransfer:
		if t, s, ok := g.pickToken(); ok {
			to := accs[(s+1+rng.IntN(len(accs)-1))%len(accs)].Bech32
			sender := t.owner
			// An approved spender moves the token (the fixture's h82) when there is one.
			if len(t.spenders) > 0 {
				if si, ok := g.idx[t.spenders[0]]; ok {
					s, sender = si, t.spenders[0]
				}
			}
			return g.one(s, execMsg(sender, t.contract, "transfer_nft", transferNFTMsg{Recipient: to, TokenID: t.id}))
		}
	case opSendNFT:
		if t, s, ok := g.pickToken(); ok {
			return g.one(s, execMsg(t.owner, t.contract, "send_nft", sendNFTMsg{Contract: v.stubs[0], TokenID: t.id, Msg: []byte(`{"note":"devnet"}`)}))
		}
	case opApprove:
		if t, s, ok := g.pickToken(); ok {
			sp := accs[(s+1)%len(accs)].Bech32
			return g.one(s, execMsg(t.owner, t.contract, "approve", approveMsg{Spender: sp, TokenID: t.id}))
		}
	case opUpdateInfo:
		for _, t := range v.tokens {
			for _, c := range v.collections {
				if c.addr == t.contract && !g.busy[t.contract+t.id] {
					if s, ok := g.idx[c.col.Creator]; ok {
						g.busy[t.contract+t.id] = true
						return g.one(s, execMsg(c.col.Creator, c.addr, "update_nft_info", updateNFTInfoMsg{TokenID: t.id,
							TokenURI: strp(fmt.Sprintf("https://devnet.invalid/wasm/%s/%s-v%d.json", c.col.Symbol, t.id, 2+rng.IntN(8)))}))
					}
				}
			}
		}
	case opBurnNFT:
		if t, s, ok := g.pickToken(); ok {
			return g.one(s, execMsg(t.owner, t.contract, "burn", burnMsg{TokenID: t.id}))
		}
	case opCreateDenom:
		taken := map[string]bool{}
		for _, d := range v.denoms {
			taken[d.denom] = true
		}
		for range 8 {
			sub := fmt.Sprintf("dt%d", rng.IntN(1000))
			if d := FactoryDenom(me, sub); !taken[d] && !g.busy["denom "+d] {
				g.busy["denom "+d] = true
				in, _ := g.one(signer, &tokenfactoryv1.MsgCreateDenom{Sender: me, Subdenom: sub})
				in.GasLimit = DenomCreationGas + 700_000 // the creation fee is paid in gas
				return in, true
			}
		}
	case opFactoryMint:
		if d, s, ok := g.factoryAdmin(func(denomView, int) bool { return true }); ok {
			amt := strconv.Itoa(1000 + rng.IntN(1_000_000))
			to := accs[(s+1+rng.IntN(len(accs)-1))%len(accs)].Bech32
			if rng.IntN(2) == 0 {
				to = "" // mint to the admin itself, as the fixture's first mint does
			}
			return g.one(s, &tokenfactoryv1.MsgMint{Sender: d.admin, Amount: &basev1beta1.Coin{Denom: d.denom, Amount: amt}, MintToAddress: to})
		}
	case opFactoryBurn:
		// the admin burns from its own balance
		if d, s, ok := g.factoryAdmin(func(d denomView, s int) bool {
			return g.state.Balance(accs[s].Addr, d.denom).Cmp(big.NewInt(1)) > 0
		}); ok {
			bal := g.state.Balance(accs[s].Addr, d.denom)
			half := new(big.Int).Rsh(bal, 1)
			if half.Cmp(big.NewInt(1_000_000)) > 0 {
				half.SetInt64(1_000_000)
			}
			amt := 1 + rng.Int64N(half.Int64())
			return g.one(s, &tokenfactoryv1.MsgBurn{Sender: d.admin, Amount: &basev1beta1.Coin{Denom: d.denom, Amount: strconv.FormatInt(amt, 10)}})
		}
	case opFactorySend:
		n := len(accs)
		for i := range n {
			s := (signer + i) % n
			for _, d := range v.denoms {
				if g.busy["denom "+d.denom] {
					continue
				}
				if g.state.Balance(accs[s].Addr, d.denom).Cmp(big.NewInt(1000)) > 0 {
					to := accs[(s+1+rng.IntN(n-1))%n].Bech32
					return g.one(s, &bankv1beta1.MsgSend{FromAddress: accs[s].Bech32, ToAddress: to,
						Amount: []*basev1beta1.Coin{{Denom: d.denom, Amount: strconv.Itoa(1 + rng.IntN(1000))}}})
				}
			}
		}
	case opMultiMsg:
		if len(v.collections) == 0 {
			break
		}
		c := v.collections[rng.IntN(len(v.collections))]
		msg, s, ok := g.mint(c, accs[rng.IntN(len(accs))].Bech32)
		if !ok {
			break
		}
		denom := spendable(g.state, accs[s].Addr)
		if denom == "" {
			return g.one(s, msg)
		}
		send := func() *bankv1beta1.MsgSend {
			return &bankv1beta1.MsgSend{FromAddress: accs[s].Bech32, ToAddress: accs[(s+1)%len(accs)].Bech32,
				Amount: []*basev1beta1.Coin{{Denom: denom, Amount: strconv.Itoa(1 + rng.IntN(100_000))}}}
		}
		return g.one(s, send(), msg, send())
	case opFailure:
		return g.failure(signer, me)
	case opPing:
		var funds []*basev1beta1.Coin
		if d := spendable(g.state, accs[signer].Addr); d != "" && rng.IntN(2) == 0 {
			funds = []*basev1beta1.Coin{{Denom: d, Amount: strconv.Itoa(1 + rng.IntN(5000))}}
		}
		return g.one(signer, execMsg(me, v.stubs[0], "ping", emptyMsg{}, funds...))
	}
	return sim.Intent{}, false
}

// failure is a deliberate contract failure (code 5, codespace wasm): a transfer by a
// non-owner, a mint by a non-minter or a mint of a claimed token id.
func (g *gen) failure(signer int, me string) (sim.Intent, bool) {
	rng, v := g.rng, g.v
	first := rng.IntN(3)
	for i := range 3 {
		switch (first + i) % 3 {
		case 0:
			for _, t := range v.tokens {
				if t.owner != me && !slices.Contains(t.spenders, me) && !g.busy[t.contract+t.id] {
					g.busy[t.contract+t.id] = true
					return g.one(signer, execMsg(me, t.contract, "transfer_nft", transferNFTMsg{Recipient: me, TokenID: t.id}))
				}
			}
		case 1:
			for _, c := range v.collections {
				if c.col.Minter != me {
					return g.one(signer, execMsg(me, c.addr, "mint", mintMsg{TokenID: "x" + strconv.Itoa(rng.IntN(1000)), Owner: me}))
				}
			}
		default:
			for _, t := range v.tokens {
				for _, c := range v.collections {
					if c.addr == t.contract {
						if s, ok := g.idx[c.col.Minter]; ok {
							return g.one(s, execMsg(c.col.Minter, c.addr, "mint", mintMsg{TokenID: t.id, Owner: c.col.Minter}))
						}
					}
				}
			}
		}
	}
	return sim.Intent{}, false
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
