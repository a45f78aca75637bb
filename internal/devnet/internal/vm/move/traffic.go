package move

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// The traffic plan reaches a steady state so a devnet left running keeps a bounded state
// (and readView, which reads the module's whole store each block, a bounded cost): past
// these counts the generator stops creating collections and managed coins, and a mint
// becomes a burn or a transfer. The caps sit well above what the first few hundred blocks
// reach, so the chains tests and goldens look at are unchanged.
const (
	maxCollections  = 40
	maxNFTs         = 192
	maxManagedCoins = 24
	// Past this many NFTs a mint takes the collection's lowest token id with no live NFT
	// (one burned earlier) rather than a fresh one: a burn leaves a tombstone at the NFT's
	// address for good, so fresh ids forever would grow the state by one tombstone a burn.
	reuseIDsFrom         = maxNFTs - 32
	maxLivePerCollection = 16
)

// freeTokenID is the lowest token id of c with no live NFT: a burned one (its address
// holds a tombstone) or, when ids 1..n are all live, n+1. The scan stops at the first free
// id, so it is bounded by the collection's live NFTs.
func freeTokenID(kvs sim.KVReader, c colView) string {
	for i := uint64(1); ; i++ {
		id := strconv.FormatUint(i, 10)
		if _, live := kvs.Get(keyObj(NftAddr(c.creator, c.name, id))); !live {
			return id
		}
	}
}

// view is what the traffic generator knows about the chain state.
type view struct {
	nfts        []nftView // sorted by address
	collections []colView // sorted by address
	coins       []coinView
}

type nftView struct {
	addr  Addr
	owner Addr
	col   Addr
	uri   string
}

type colView struct {
	addr    Addr
	creator Addr
	name    string
	next    uint64 // total minted so far
	live    uint64 // NFTs of the collection not burned
	full    bool
	mutURI  bool
}

type coinView struct {
	meta    Addr
	creator Addr
	denom   string
	managed bool
}

func (m *Module) readView(kvs sim.KVReader) view {
	var v view
	kvs.Iterate("col/", func(k string, b []byte) bool {
		var c collectionRec
		if err := jsonUnmarshal(b, &c); err == nil {
			v.collections = append(v.collections, colView{
				addr: hexAddr(strings.TrimPrefix(k, "col/")), creator: hexAddr(c.Creator), name: c.Name,
				next: c.Minted, live: c.Current, full: c.MaxSupply != nil && c.Current >= *c.MaxSupply, mutURI: c.MutNftURI,
			})
		}
		return true
	})
	kvs.Iterate("nft/", func(k string, b []byte) bool {
		var n nftRec
		var o objectRec
		a := hexAddr(strings.TrimPrefix(k, "nft/"))
		if jsonUnmarshal(b, &n) == nil && getJSON(kvs, keyObj(a), &o) {
			v.nfts = append(v.nfts, nftView{addr: a, owner: hexAddr(o.Owner), col: hexAddr(n.Collection), uri: n.URI})
		}
		return true
	})
	kvs.Iterate("meta/", func(k string, b []byte) bool {
		var md metadataRec
		a := hexAddr(strings.TrimPrefix(k, "meta/"))
		if jsonUnmarshal(b, &md) == nil {
			d, _ := m.denomOf(kvs, a)
			v.coins = append(v.coins, coinView{meta: a, creator: hexAddr(md.Creator), denom: d, managed: hexAddr(md.Creator) != StdAddr})
		}
		return true
	})
	return v
}

// Traffic implements sim.Module: one to three transactions per block drawn from a fixed mix
// of the operations the fixture shows (FA transfers, collections, NFT mints, transfers, URI
// changes and burns, managed coins, a multi-message tx, deliberate failures). It reads only
// rng and state, so a seed replays the same chain.
func (m *Module) Traffic(rng *rand.Rand, state sim.Query, accounts []sim.Account) []sim.Intent {
	if len(accounts) < 2 {
		return nil
	}
	v := m.readView(state.Store(StoreName))
	// The generator's accounts are funded at genesis without any flavor call; learn their
	// primary stores here so the first bank send to them renders no store creation.
	for _, a := range accounts {
		for _, c := range v.coins {
			if state.Balance(a.Addr, c.denom).Sign() > 0 {
				m.set.add(PrimaryStore(AccAddr(a.Addr), c.meta))
			}
		}
	}
	busy := map[Addr]bool{} // objects already touched by an intent of this block
	n := 1 + rng.IntN(3)
	var out []sim.Intent
	for range n {
		if in, ok := m.intent(rng, state, accounts, &v, busy); ok {
			out = append(out, in)
		}
	}
	return out
}

func (m *Module) intent(rng *rand.Rand, state sim.Query, accs []sim.Account, v *view, busy map[Addr]bool) (sim.Intent, bool) {
	signer := rng.IntN(len(accs))
	other := (signer + 1 + rng.IntN(len(accs)-1)) % len(accs)
	me, them := AccAddr(accs[signer].Addr), AccAddr(accs[other].Addr)
	from := accs[signer].Bech32
	exec := func(module, fn string, typeArgs []string, args ...[]byte) *movev1.MsgExecute {
		return &movev1.MsgExecute{Sender: from, ModuleAddress: "0x1", ModuleName: module, FunctionName: fn, TypeArgs: typeArgs, Args: args}
	}
	one := func(msgs ...proto.Message) (sim.Intent, bool) { return sim.Intent{Signer: signer, Msgs: msgs}, true }

	var mine []colView
	for _, c := range v.collections {
		// Once ids are reused a collection also stops at maxLivePerCollection, which bounds
		// its highest id, so the addresses ever used (the tombstones) stay few.
		atCap := len(v.nfts) >= reuseIDsFrom && c.live >= maxLivePerCollection
		if c.creator == me && !c.full && !atCap && !busy[c.addr] {
			mine = append(mine, c)
		}
	}
	var owned []nftView
	for _, n := range v.nfts {
		if n.owner == me && !busy[n.addr] {
			owned = append(owned, n)
		}
	}
	// Now and then the JSON form (MsgExecuteJSON), as the fixture's h24 and h50 do.
	execJSON := func(module, fn string, args ...any) *movev1.MsgExecuteJSON {
		js := make([]string, len(args))
		for i, a := range args {
			js[i] = string(marshalNoEscape(a))
		}
		return &movev1.MsgExecuteJSON{Sender: from, ModuleAddress: "0x1", ModuleName: module, FunctionName: fn, Args: js}
	}
	mint := func(c colView, to Addr) proto.Message {
		busy[c.addr] = true
		id := strconv.FormatUint(c.next+1, 10)
		if len(v.nfts) >= reuseIDsFrom {
			id = freeTokenID(state.Store(StoreName), c)
		}
		desc := fmt.Sprintf("Token %s of %s", id, c.name)
		uri := fmt.Sprintf("https://devnet.invalid/move/%s/%s.json", c.addr.Hex()[:8], id)
		if rng.IntN(4) == 0 {
			return execJSON("simple_nft", "mint", c.name, desc, id, uri,
				[]string{"rarity"}, []string{"0x1::string::String"}, []string{hex.EncodeToString(bcsStr("common"))}, to.String())
		}
		return exec("simple_nft", "mint", nil, bcsStr(c.name), bcsStr(desc), bcsStr(id), bcsStr(uri),
			bcsEmptyVec(), bcsEmptyVec(), bcsEmptyVec(), bcsSomeAddr(to))
	}

	switch roll := rng.IntN(100); {
	case roll < 30 && len(v.nfts) >= maxNFTs && len(owned) > 0:
		// At the cap a creation or a mint burns one of ours instead.
		n := owned[rng.IntN(len(owned))]
		busy[n.addr] = true
		return one(exec("simple_nft", "burn", []string{"0x1::nft::Nft"}, bcsAddr(n.addr)))
	case roll < 30 && len(v.nfts) >= maxNFTs:
		// Nothing of ours to burn: a plain transfer (the default below).
	case (roll < 8 && len(v.collections) < maxCollections) || len(v.collections) == 0:
		name := fmt.Sprintf("Devnet Colección %d", rng.IntN(1_000_000))
		var max []byte
		if rng.IntN(2) == 0 {
			max = bcsSomeU64(uint64(50 + rng.IntN(100)))
		} else {
			max = bcsNone()
		}
		mut := rng.IntN(3) != 0
		return one(exec("simple_nft", "create_collection", nil,
			bcsStr("Collection created by the devnet traffic generator"), max, bcsStr(name),
			bcsStr("https://devnet.invalid/move/collection.json"),
			bcsBool(mut), bcsBool(mut), bcsBool(mut), bcsBool(mut), bcsBool(mut), bcsBool(mut), bcsDecimal("0.05")))
	case roll < 30 && len(mine) > 0:
		return one(mint(mine[rng.IntN(len(mine))], them))
	case roll < 45 && len(owned) > 0:
		n := owned[rng.IntN(len(owned))]
		busy[n.addr] = true
		if rng.IntN(2) == 0 {
			return one(exec("object", "transfer_call", nil, bcsAddr(n.addr), bcsAddr(them)))
		}
		return one(exec("object", "transfer", []string{"0x1::simple_nft::SimpleNft"}, bcsAddr(n.addr), bcsAddr(them)))
	case roll < 52:
		for _, n := range v.nfts {
			if busy[n.addr] {
				continue
			}
			for _, c := range v.collections {
				if c.addr == n.col && c.creator == me && c.mutURI {
					busy[n.addr] = true
					return one(exec("simple_nft", "set_uri", []string{"0x1::nft::Nft"}, bcsAddr(n.addr),
						bcsStr(strings.TrimSuffix(n.uri, ".json")+"-v2.json")))
				}
			}
		}
	case roll < 58 && len(owned) > 0:
		n := owned[rng.IntN(len(owned))]
		busy[n.addr] = true
		return one(exec("simple_nft", "burn", []string{"0x1::nft::Nft"}, bcsAddr(n.addr)))
	case roll < 64:
		for _, c := range v.coins {
			if c.managed && c.creator == me {
				if bal := state.Balance(me.Account(), c.denom); bal.Cmp(big.NewInt(1000)) > 0 && rng.IntN(4) == 0 {
					return one(exec("managed_coin", "burn", nil, bcsAddr(c.meta), bcsU64(uint64(1+rng.IntN(1000)))))
				}
				to := them
				if rng.IntN(3) == 0 {
					to = me
				}
				return one(exec("managed_coin", "mint_to", nil, bcsAddr(to), bcsAddr(c.meta), bcsU64(uint64(1000+rng.IntN(1_000_000)))))
			}
		}
		managed := 0
		for _, c := range v.coins {
			if c.managed {
				managed++
			}
		}
		if managed >= maxManagedCoins {
			break
		}
		sym := fmt.Sprintf("D%c%c", 'A'+rune(rng.IntN(26)), 'A'+rune(rng.IntN(26)))
		if _, exists := state.Store(StoreName).Get(keyObj(ManagedCoinMetadata(me, sym))); exists {
			break
		}
		return one(exec("managed_coin", "initialize", nil, bcsNone(), bcsStr("Devnet Token "+sym), bcsStr(sym),
			bcsU8(uint8(rng.IntN(7))), bcsStr(""), bcsStr("")))
	case roll < 68 && len(owned) == 0:
		// A transfer of somebody else's NFT: aborts in 0x1::object (code 327684).
		for _, n := range v.nfts {
			if n.owner != me && !busy[n.addr] {
				busy[n.addr] = true
				return one(exec("object", "transfer_call", nil, bcsAddr(n.addr), bcsAddr(me)))
			}
		}
	case roll < 72 && len(mine) > 0 && len(v.nfts) < maxNFTs:
		// The multi-message shape of the fixture: MsgSend, a mint, MsgSend.
		if d := m.spendable(state, v, me); d != "" {
			send := func(amt int64) *bankv1beta1.MsgSend {
				return &bankv1beta1.MsgSend{FromAddress: from, ToAddress: accs[other].Bech32,
					Amount: []*basev1beta1.Coin{{Denom: d, Amount: strconv.FormatInt(amt, 10)}}}
			}
			return one(send(int64(1+rng.IntN(1000))), mint(mine[rng.IntN(len(mine))], them), send(int64(1+rng.IntN(1000))))
		}
	}
	// Default: a fungible-asset transfer; now and then more than the balance (abort 65540).
	var coins []coinView
	for _, c := range v.coins {
		if state.Balance(me.Account(), c.denom).Sign() > 0 {
			coins = append(coins, c)
		}
	}
	if len(coins) == 0 {
		return sim.Intent{}, false
	}
	c := coins[rng.IntN(len(coins))]
	bal := state.Balance(me.Account(), c.denom)
	// Up to 1% of the balance (capped to keep the draw in an int64).
	limit := new(big.Int).Div(bal, big.NewInt(100))
	if !limit.IsInt64() || limit.Int64() > 1<<40 {
		limit = big.NewInt(1 << 40)
	}
	amt := big.NewInt(1 + rng.Int64N(limit.Int64()+1))
	if rng.IntN(25) == 0 {
		amt.Add(bal, big.NewInt(1))
	}
	if !amt.IsUint64() {
		return sim.Intent{}, false
	}
	switch rng.IntN(5) {
	case 0:
		return one(execJSON("coin", "transfer", them.String(), c.meta.String(), amt.String()))
	case 1, 2:
		return one(exec("coin", "transfer", nil, bcsAddr(them), bcsAddr(c.meta), bcsU64(amt.Uint64())))
	}
	return one(exec("primary_fungible_store", "transfer", []string{"0x1::fungible_asset::Metadata"},
		bcsAddr(c.meta), bcsAddr(them), bcsU64(amt.Uint64())))
}

// spendable picks a coin denom me holds more than a little of.
func (m *Module) spendable(state sim.Query, v *view, me Addr) string {
	denoms := make([]string, 0, len(v.coins))
	for _, c := range v.coins {
		denoms = append(denoms, c.denom)
	}
	sort.Strings(denoms)
	for _, d := range denoms {
		if state.Balance(me.Account(), d).Cmp(big.NewInt(100_000)) > 0 {
			return d
		}
	}
	return ""
}
