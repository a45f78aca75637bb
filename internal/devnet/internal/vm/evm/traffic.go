package evm

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

type trafficState struct {
	m       *Module
	st      sim.Query
	rng     *rand.Rand
	accs    []sim.Account
	idx     map[string]int
	erc20s  []common.Address
	erc721s []common.Address
	c20     map[common.Address]contract
	c721    map[common.Address]contract
	touched map[string]bool // NFTs already moved in this block
	minted  map[common.Address]uint64
}

// Traffic implements sim.Module: a deterministic mix of bank sends, ERC-20 and ERC-721
// deploys, mints, transfers, approvals and burns, native value transfers, multi-message txs
// and a failing tx now and then.
func (m *Module) Traffic(rng *rand.Rand, st sim.Query, accs []sim.Account) []sim.Intent {
	if len(accs) < 4 {
		return nil
	}
	t := &trafficState{m: m, st: st, rng: rng, accs: accs, idx: map[string]int{}, c20: map[common.Address]contract{},
		c721: map[common.Address]contract{}, touched: map[string]bool{}, minted: map[common.Address]uint64{}}
	for i, a := range accs {
		t.idx[key(common.BytesToAddress(a.Addr))] = i
	}
	st.Store(StoreName).Iterate("c/", func(k string, v []byte) bool {
		var c contract
		if json.Unmarshal(v, &c) != nil || c.Owner == "" {
			return true
		}
		a := common.HexToAddress(k[2:])
		if _, ours := t.idx[c.Owner]; !ours {
			return true
		}
		switch c.Kind {
		case "erc20":
			t.erc20s = append(t.erc20s, a)
			t.c20[a] = c
		case "erc721":
			t.erc721s = append(t.erc721s, a)
			t.c721[a] = c
		}
		return true
	})
	// set-up: one ERC-20 through the factory, then one ERC-721 collection, then a second one
	// created from the Cosmos side (MsgCreate with a memo, so it stays a Cosmos tx)
	if len(t.erc20s) == 0 {
		return []sim.Intent{t.createERC20(1)}
	}
	if len(t.erc721s) == 0 {
		return []sim.Intent{t.createERC721(2, "Test NFT", "TNFT", "")}
	}
	if len(t.erc721s) == 1 && st.Height()%7 == 0 {
		return []sim.Intent{t.createERC721(1, "Cosmos Síde NFT", "CSNFT", "deploy from the cosmos side")}
	}
	n := 1 + rng.IntN(m.cfg.MaxTxsPerBlock)
	var out []sim.Intent
	for i := 0; i < n; i++ {
		if in, ok := t.one(); ok {
			out = append(out, in)
		}
	}
	return out
}

func (t *trafficState) bech(i int) string { return t.accs[i].Bech32 }
func (t *trafficState) addr(i int) common.Address {
	return common.BytesToAddress(t.accs[i].Addr)
}
func (t *trafficState) other(i int) int {
	j := t.rng.IntN(len(t.accs) - 1)
	if j >= i {
		j++
	}
	return j
}

func (t *trafficState) call(signer int, to common.Address, input []byte, value *big.Int, gas uint64, memo string) sim.Intent {
	v := "0"
	if value != nil {
		v = value.String()
	}
	return sim.Intent{Signer: signer, Msgs: []proto.Message{&evmv1.MsgCall{Sender: t.bech(signer), ContractAddr: to.Hex(),
		Input: hexutilEncode(input), Value: v, AccessList: []*evmv1.AccessTuple{}}}, Memo: memo, GasLimit: gas}
}

func (t *trafficState) createERC20(signer int) sim.Intent {
	in, _ := Pack("createERC20", "Test USD", "TUSD", uint8(6))
	return t.call(signer, t.m.factory, in, nil, 1000000, "")
}

func (t *trafficState) createERC721(signer int, name, symbol, memo string) sim.Intent {
	code, _ := ERC721Code(name, symbol)
	return sim.Intent{Signer: signer, Msgs: []proto.Message{&evmv1.MsgCreate{Sender: t.bech(signer), Code: hexutilEncode(code), Value: "0"}},
		Memo: memo, GasLimit: 1500000}
}

func (t *trafficState) bankSend(from, to int, denom string, amt *big.Int) proto.Message {
	return &bankv1beta1.MsgSend{FromAddress: t.bech(from), ToAddress: t.bech(to),
		Amount: []*basev1beta1.Coin{{Denom: denom, Amount: amt.String()}}}
}

func (t *trafficState) ownerIdx(c contract) int { return t.idx[c.Owner] }

func (t *trafficState) pick20() (common.Address, contract) {
	a := t.erc20s[t.rng.IntN(len(t.erc20s))]
	return a, t.c20[a]
}

func (t *trafficState) pick721() (common.Address, contract) {
	a := t.erc721s[t.rng.IntN(len(t.erc721s))]
	return a, t.c721[a]
}

// tokens lists a collection's live tokens owned by devnet accounts.
func (t *trafficState) tokens(c common.Address) []struct {
	id    *big.Int
	owner int
} {
	var out []struct {
		id    *big.Int
		owner int
	}
	prefix := "t/" + key(c) + "/"
	t.st.Store(StoreName).Iterate(prefix, func(k string, v []byte) bool {
		var tk token
		if json.Unmarshal(v, &tk) != nil {
			return true
		}
		oi, ok := t.idx[tk.Owner]
		if !ok || t.touched[k] {
			return true
		}
		id, _ := new(big.Int).SetString(k[len(prefix):], 16)
		out = append(out, struct {
			id    *big.Int
			owner int
		}{id, oi})
		return true
	})
	return out
}

func (t *trafficState) mint721(c common.Address, cc contract, to int, memo string) sim.Intent {
	n := cc.Minted + t.minted[c] + 1
	t.minted[c]++
	uri := fmt.Sprintf("https://devnet.invalid/%s/%d.json", strings.ToLower(cc.Symbol), n)
	in, _ := Pack("mintNFT", t.addr(to), new(big.Int).SetUint64(n), uri)
	return t.call(t.ownerIdx(cc), c, in, nil, 400000, memo)
}

// maxLiveTokens caps a collection's live tokens, so a devnet left running reaches a steady
// state (bounded state, and a bounded walk of it in tokens) instead of minting forever: at
// the cap a mint burns one instead. It sits well above what the first few hundred blocks
// reach, so the chains tests and goldens look at are unchanged.
const maxLiveTokens = 128

// burn721 burns one of toks (the collection's live tokens of ours), drawn by the rng.
func (t *trafficState) burn721(c common.Address, toks []struct {
	id    *big.Int
	owner int
}) sim.Intent {
	tk := toks[t.rng.IntN(len(toks))]
	t.touched[tokenKey(c, tk.id)] = true
	in, _ := Pack("burn", tk.id)
	return t.call(tk.owner, c, in, nil, 350000, "")
}

func (t *trafficState) one() (sim.Intent, bool) {
	r := t.rng.IntN(100)
	a := t.rng.IntN(len(t.accs))
	b := t.other(a)
	fee := t.m.cfg.FeeDenom
	switch {
	case r < 15: // bank send of the fee denom
		amt := new(big.Int).Mul(big.NewInt(int64(1+t.rng.IntN(1000))), big.NewInt(1e15))
		return sim.Intent{Signer: a, Msgs: []proto.Message{t.bankSend(a, b, fee, amt)}, GasLimit: 250000}, true
	case r < 22 && len(t.m.cfg.GenesisDenoms) > 0: // bank send of a genesis denom, sometimes with two coins
		d := t.m.cfg.GenesisDenoms[t.rng.IntN(len(t.m.cfg.GenesisDenoms))]
		msg := t.bankSend(a, b, d, big.NewInt(int64(1+t.rng.IntN(1000000))))
		if t.rng.IntN(2) == 0 {
			ms := msg.(*bankv1beta1.MsgSend)
			ms.Amount = append([]*basev1beta1.Coin{{Denom: fee, Amount: "1000000000000000"}}, ms.Amount...)
		}
		return sim.Intent{Signer: a, Msgs: []proto.Message{msg}, GasLimit: 350000}, true
	case r < 32: // ERC-20 mint by its owner
		c, cc := t.pick20()
		in, _ := Pack("mint", t.addr(b), big.NewInt(int64(1+t.rng.IntN(1000000000))))
		return t.call(t.ownerIdx(cc), c, in, nil, 350000, ""), true
	case r < 47: // ERC-20 transfer within balance
		c, cc := t.pick20()
		bal := t.st.Balance(t.addr(a).Bytes(), cc.Denom)
		if bal.Sign() == 0 {
			in, _ := Pack("mint", t.addr(a), big.NewInt(1000000000))
			return t.call(t.ownerIdx(cc), c, in, nil, 350000, ""), true
		}
		amt := new(big.Int).Div(bal, big.NewInt(int64(2+t.rng.IntN(8))))
		in, _ := Pack("transfer", t.addr(b), amt)
		memo := ""
		if t.rng.IntN(4) == 0 {
			memo = "erc20 transfer from the cosmos side" // a Cosmos-signed MsgCall
		}
		return t.call(a, c, in, nil, 350000, memo), true
	case r < 52: // ERC-20 approve
		c, _ := t.pick20()
		in, _ := Pack("approve", t.addr(b), big.NewInt(int64(1+t.rng.IntN(1000000))))
		return t.call(a, c, in, nil, 300000, ""), true
	case r < 64: // ERC-721 mint
		c, cc := t.pick721()
		if toks := t.tokens(c); len(toks) >= maxLiveTokens {
			return t.burn721(c, toks), true
		}
		return t.mint721(c, cc, b, ""), true
	case r < 76: // ERC-721 transfer / safe transfer
		c, _ := t.pick721()
		toks := t.tokens(c)
		if len(toks) == 0 {
			return sim.Intent{}, false
		}
		tk := toks[t.rng.IntN(len(toks))]
		t.touched[tokenKey(c, tk.id)] = true
		fn := "transferFrom"
		if t.rng.IntN(2) == 0 {
			fn = "safeTransferFrom"
		}
		in, _ := Pack(fn, t.addr(tk.owner), t.addr(t.other(tk.owner)), tk.id)
		return t.call(tk.owner, c, in, nil, 400000, ""), true
	case r < 80: // ERC-721 burn
		c, _ := t.pick721()
		toks := t.tokens(c)
		if len(toks) == 0 {
			return sim.Intent{}, false
		}
		tk := toks[t.rng.IntN(len(toks))]
		t.touched[tokenKey(c, tk.id)] = true
		in, _ := Pack("burn", tk.id)
		return t.call(tk.owner, c, in, nil, 350000, ""), true
	case r < 86: // native value transfer to an account
		amt := new(big.Int).Mul(big.NewInt(int64(1+t.rng.IntN(1000))), big.NewInt(1e12))
		return t.call(a, t.addr(b), nil, amt, 300000, ""), true
	case r < 92: // multi-message Cosmos tx: two bank sends and an ERC-721 mint by the collection owner
		c, cc := t.pick721()
		if toks := t.tokens(c); len(toks) >= maxLiveTokens {
			return t.burn721(c, toks), true
		}
		o := t.ownerIdx(cc)
		mint := t.mint721(c, cc, t.other(o), "")
		msgs := []proto.Message{
			t.bankSend(o, t.other(o), fee, big.NewInt(int64(1+t.rng.IntN(100)))),
			t.bankSend(o, t.other(o), fee, big.NewInt(int64(1+t.rng.IntN(100)))),
			mint.Msgs[0],
		}
		return sim.Intent{Signer: o, Msgs: msgs, Memo: "multi-message tx", GasLimit: 900000}, true
	case r < 96: // failure: ERC-20 transfer beyond the balance (EVM revert)
		c, cc := t.pick20()
		bal := t.st.Balance(t.addr(a).Bytes(), cc.Denom)
		in, _ := Pack("transfer", t.addr(b), new(big.Int).Add(bal, big.NewInt(1_000_000_000_000)))
		return t.call(a, c, in, nil, 300000, ""), true
	default: // failure: ERC-721 transfer by a non-owner (EVM revert), from the Cosmos side
		c, _ := t.pick721()
		toks := t.tokens(c)
		if len(toks) == 0 {
			return sim.Intent{}, false
		}
		tk := toks[t.rng.IntN(len(toks))]
		thief := t.other(tk.owner)
		in, _ := Pack("transferFrom", t.addr(tk.owner), t.addr(thief), tk.id)
		return t.call(thief, c, in, nil, 300000, "unauthorized transfer"), true
	}
}
