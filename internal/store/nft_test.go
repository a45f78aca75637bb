package store

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// nftModel is the token state a run of NFT changes must leave, kept by brute force.
type nftModel struct {
	colls  map[string]*Collection
	tokens map[string]*Token // collection\x00token_id
	txs    map[string][]int64
}

func coll(i int) []byte { return bytes.Repeat([]byte{0xc0 + byte(i)}, 32) }

// buildNFTModel attaches NFT changes to buildModel(n)'s blocks: three collections (one named
// with spaces and non-ASCII letters, one created EVM-style from its first tx), a mint per tx,
// transfers, URI changes and burns, Move-style object changes, an ICS-721 origin name and a
// not-an-NFT mark.
func buildNFTModel(n int) (model, nftModel) {
	m := buildModel(n)
	nm := nftModel{colls: map[string]*Collection{}, tokens: map[string]*Token{}, txs: map[string][]int64{}}
	names := []string{"My NFT", "Çollection Ünïcode 2", "Move Things"}
	seq := int64(0)
	var keys []string // live tokens in mint order
	for bi := range m.bundles {
		b := &m.bundles[bi]
		h := b.Block.Height
		nr := &NFTRows{}
		b.Extensions = append(b.Extensions, nr)
		if h <= 3 {
			i := int(h) - 1
			c := NFTChange{Kind: NFTCreateCollection, TxIndex: -1, Collection: coll(i), Name: names[i], Creator: acct(i)}
			nm.colls[string(coll(i))] = &Collection{Addr: coll(i), Name: names[i], Creator: acct(i), Height: h, Time: b.Block.Time}
			nr.NFTs = append(nr.NFTs, c)
		}
		for ti := range b.Txs {
			seq++
			ci := int(seq % 3)
			if h <= 3 {
				ci = 0
			}
			id := fmt.Sprintf("%d", seq)
			k := nftKey(coll(ci), id)
			owner := acct(int(seq % 4))
			var obj []byte
			ownerArg := owner
			if ci == 2 {
				// Move: the object names the token; the mint starts with the creator, a
				// transfer event follows.
				obj = bytes.Repeat([]byte{byte(seq)}, 32)
				ownerArg = nil
			}
			nr.NFTs = append(nr.NFTs, NFTChange{Kind: NFTMint, TxIndex: ti, Edge: ci != 2, Collection: coll(ci), TokenID: id,
				ObjectAddr: obj, Owner: ownerArg, URI: "ipfs://" + id + "\x00"})
			t := &Token{Collection: coll(ci), CollectionName: names[ci], TokenID: id, ObjectAddr: obj, Owner: owner, URI: "ipfs://" + id,
				Height: h, Time: b.Block.Time}
			if ci == 2 {
				t.Owner = acct(2)
				nr.NFTs = append(nr.NFTs, NFTChange{Kind: NFTTransfer, TxIndex: ti, ObjectAddr: obj, Owner: owner})
				t.Owner = owner
			} else {
				nm.txs[k] = append(nm.txs[k], seq)
			}
			nm.tokens[k] = t
			keys = append(keys, k)
			// Every 4th tx also moves, renames or burns an older token.
			if seq%4 == 0 && len(keys) > 2 {
				old := keys[int(seq)%(len(keys)-1)]
				ot := nm.tokens[old]
				c := NFTChange{TxIndex: ti, Edge: ot.ObjectAddr == nil, Collection: ot.Collection, TokenID: ot.TokenID}
				if ot.ObjectAddr != nil {
					c.Collection, c.TokenID, c.ObjectAddr = nil, "", ot.ObjectAddr
				}
				switch seq % 12 {
				case 0:
					c.Kind = NFTBurn
					delete(nm.tokens, old)
					keys = slices.DeleteFunc(keys, func(s string) bool { return s == old })
				case 4:
					c.Kind, c.Owner = NFTTransfer, acct(7)
					ot.Owner, ot.Height, ot.Time = acct(7), h, b.Block.Time
				default:
					c.Kind, c.URI = NFTSetURI, "ipfs://new/"+ot.TokenID
					ot.URI, ot.Height, ot.Time = c.URI, h, b.Block.Time
				}
				if c.Edge && !slices.Contains(nm.txs[old], seq) {
					nm.txs[old] = append(nm.txs[old], seq)
				}
				nr.NFTs = append(nr.NFTs, c)
			}
		}
		if h == 5 {
			nr.NFTs = append(nr.NFTs, NFTChange{Kind: NFTOriginName, TxIndex: -1, Name: names[2], OriginName: "L1 Origin Ärt"})
			nm.colls[string(coll(2))].OriginName = "L1 Origin Ärt"
			nr.NotNFT = append(nr.NotNFT, acct(9))
		}
	}
	for _, t := range nm.tokens {
		c := nm.colls[string(t.Collection)]
		c.NFTCount++
		t.CollectionOriginName = c.OriginName
	}
	return m, nm
}

func (nm nftModel) page(f TokenFilter, p Page) ([]string, int64) {
	var all []*Token
	for _, t := range nm.tokens {
		if (f.Owner != nil && !bytes.Equal(t.Owner, f.Owner)) || (f.Collection != nil && !bytes.Equal(t.Collection, f.Collection)) ||
			(f.TokenIDSet && t.TokenID != f.TokenID) {
			continue
		}
		all = append(all, t)
	}
	slices.SortFunc(all, func(a, b *Token) int {
		x := cmp.Compare(a.TokenID, b.TokenID)
		y := cmp.Compare(a.Height, b.Height)
		if f.OrderByHeight {
			x, y = y, x
		}
		r := cmp.Or(x, y, bytes.Compare(a.Collection, b.Collection))
		if p.Desc {
			r = -r
		}
		return r
	})
	var out []string
	for i := int(p.Offset); i < len(all) && len(out) < limitOf(p); i++ {
		out = append(out, all[i].TokenID+"@"+fmt.Sprint(all[i].Collection[0]))
	}
	return out, int64(len(all))
}

func TestNFTStore(t *testing.T) {
	m, nm := buildNFTModel(40)
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		// Two batches, so changes to tokens of an earlier transaction are covered too.
		if err := db.WriteBlocks(ctx, m.bundles[:17]); err != nil {
			t.Fatal(err)
		}
		if err := db.WriteBlocks(ctx, m.bundles[17:]); err != nil {
			t.Fatal(err)
		}

		for _, want := range nm.colls {
			got, err := db.Collection(ctx, want.Addr)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != want.Name || got.OriginName != want.OriginName || got.NFTCount != want.NFTCount ||
				got.Height != want.Height || !got.Time.Equal(want.Time) || !bytes.Equal(got.Creator, want.Creator) {
				t.Errorf("collection %q: got %+v, want %+v", want.Name, got, *want)
			}
		}
		if _, err := db.Collection(ctx, coll(9)); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown collection: %v, want ErrNotFound", err)
		}

		var filters []TokenFilter
		for _, byHeight := range []bool{false, true} {
			filters = append(filters, TokenFilter{OrderByHeight: byHeight}, TokenFilter{Owner: acct(1), OrderByHeight: byHeight},
				TokenFilter{Owner: acct(7), OrderByHeight: byHeight}, TokenFilter{Collection: coll(0), OrderByHeight: byHeight},
				TokenFilter{Collection: coll(2), OrderByHeight: byHeight}, TokenFilter{Owner: acct(3), Collection: coll(1), OrderByHeight: byHeight},
				TokenFilter{Collection: coll(1), TokenID: "7", TokenIDSet: true, OrderByHeight: byHeight},
				TokenFilter{Owner: acct(99), OrderByHeight: byHeight})
		}
		for fi, f := range filters {
			for _, desc := range []bool{true, false} {
				for _, lim := range []int{3, 1000} {
					// Offsets forward to the end, and keyset cursors over the same pages.
					var after *TokenCursor
					for off := int64(0); ; off += int64(lim) {
						p := Page{Limit: lim, Desc: desc, Offset: off, CountTotal: true}
						want, total := nm.page(f, p)
						for _, cur := range []*TokenCursor{nil, after} {
							if cur == nil && off > 0 && after != nil {
								continue
							}
							got, err := db.Tokens(ctx, f, p, cur)
							if err != nil {
								t.Fatal(err)
							}
							var ids []string
							for _, tk := range got.Tokens {
								ids = append(ids, tk.TokenID+"@"+fmt.Sprint(tk.Collection[0]))
							}
							if !slices.Equal(ids, want) || got.Total != total {
								t.Fatalf("filter %d desc=%v limit %d offset %d cursor %v: got %v (total %d), want %v (total %d)",
									fi, desc, lim, off, cur != nil, ids, got.Total, want, total)
							}
							if len(got.Tokens) > 0 {
								l := got.Tokens[len(got.Tokens)-1]
								after = &TokenCursor{Height: l.Height, TokenID: l.TokenID, Collection: l.Collection}
							}
						}
						if len(want) < lim {
							break
						}
					}
				}
			}
		}
		// Every live token's fields.
		all, err := db.Tokens(ctx, TokenFilter{}, Page{Limit: 1000}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range all.Tokens {
			want := nm.tokens[nftKey(got.Collection, got.TokenID)]
			if want == nil || got.URI != want.URI || !bytes.Equal(got.Owner, want.Owner) || got.Height != want.Height ||
				got.CollectionName != want.CollectionName || got.CollectionOriginName != want.CollectionOriginName ||
				!bytes.Equal(got.ObjectAddr, want.ObjectAddr) && len(got.ObjectAddr)+len(want.ObjectAddr) > 0 {
				t.Errorf("token %s: got %+v, want %+v", got.TokenID, got, want)
			}
		}

		// Collections: by owner, by normalised name (spaces, case, non-ASCII, origin name).
		cases := []struct {
			f    CollectionFilter
			want []int
		}{
			{CollectionFilter{}, []int{0, 1, 2}},
			{CollectionFilter{Name: "my nft", NameSet: true}, []int{0}},
			{CollectionFilter{Name: "ÇOLLECTION ü", NameSet: true}, []int{1}},
			{CollectionFilter{Name: "origin ä", NameSet: true}, []int{2}},
			{CollectionFilter{Name: "%_", NameSet: true}, []int{0, 1, 2}},
			{CollectionFilter{Name: "nope", NameSet: true}, nil},
			{CollectionFilter{Owner: acct(7)}, ownersColls(nm, acct(7))},
			{CollectionFilter{Owner: acct(99)}, nil},
		}
		for _, c := range cases {
			for _, desc := range []bool{false, true} {
				got, err := db.Collections(ctx, c.f, Page{Limit: 100, Desc: desc, CountTotal: true})
				if err != nil {
					t.Fatal(err)
				}
				var idx []int
				for _, cl := range got.Collections {
					idx = append(idx, int(cl.Addr[0]-0xc0))
				}
				want := slices.Clone(c.want)
				if desc {
					slices.Reverse(want)
				}
				if !slices.Equal(idx, want) || got.Total != int64(len(want)) {
					t.Errorf("collections %+v desc=%v: got %v (total %d), want %v", c.f, desc, idx, got.Total, want)
				}
			}
		}

		// Token history: EVM/Wasm-style tokens through nft_txs, paged by offset and cursor.
		for k, want := range nm.txs {
			coll, id, _ := strings.Cut(k, "\x00")
			live := nm.tokens[k] != nil
			for _, desc := range []bool{false, true} {
				w := slices.Clone(want)
				if desc {
					slices.Reverse(w)
				}
				if !live {
					w = nil
				}
				var got []int64
				var after Cursor
				for range 10 {
					pg, err := db.NFTTxs(ctx, []byte(coll), id, Page{Limit: 1, Desc: desc, After: after, CountTotal: true})
					if err != nil {
						t.Fatal(err)
					}
					if len(pg.Txs) == 0 {
						break
					}
					got = append(got, pg.Txs[0].Sequence)
					after = Cursor{Kind: CursorSequence, Value: pg.Txs[0].Sequence}
				}
				if !slices.Equal(got, w) {
					t.Fatalf("txs of token %s: got %v, want %v", id, got, w)
				}
				if live && len(w) > 1 {
					pg, err := db.NFTTxs(ctx, []byte(coll), id, Page{Limit: 1, Desc: desc, Offset: 1, CountTotal: true})
					if err != nil {
						t.Fatal(err)
					}
					if len(pg.Txs) != 1 || pg.Txs[0].Sequence != w[1] || pg.Total != int64(len(w)) {
						t.Fatalf("txs of token %s offset 1: got %+v", id, pg)
					}
				}
			}
		}
		// A Move token's history is its object's tx_accounts: none were written here.
		for _, tk := range nm.tokens {
			if tk.ObjectAddr != nil {
				pg, err := db.NFTTxs(ctx, tk.Collection, tk.TokenID, Page{Limit: 10, CountTotal: true})
				if err != nil || len(pg.Txs) != 0 {
					t.Fatalf("move token %s: %+v %v", tk.TokenID, pg, err)
				}
				break
			}
		}
		marks, err := db.NotNFTContracts(ctx)
		if err != nil || len(marks) != 1 || !bytes.Equal(marks[0], acct(9)) {
			t.Errorf("not-an-NFT marks %x, %v", marks, err)
		}
	})
}

// TestNFTCreatorFromFirstTx: an EVM collection takes creator, height and time from the first
// tx touching the contract, even when that tx is in the same batch.
func TestNFTCreatorFromFirstTx(t *testing.T) {
	m := buildModel(10)
	// acct(10+k) is touched by tx s when (s*3)%7 == k; the first such tx is the contract's.
	contract := acct(13)
	var firstH int64
	var firstSigner []byte
	for _, b := range m.bundles {
		for _, tx := range b.Txs {
			if firstH == 0 && bytes.Equal(tx.Accounts[0].Addr, contract) {
				firstH, firstSigner = b.Block.Height, tx.Signer
			}
		}
	}
	if firstH == 0 {
		t.Fatal("model has no tx touching the contract")
	}
	last := &m.bundles[len(m.bundles)-1]
	last.Extensions = append(last.Extensions, &NFTRows{NFTs: []NFTChange{{Kind: NFTCreateCollection, TxIndex: -1, Collection: contract, Name: "Test NFT", CreatorFromFirstTx: true}}})
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, m.bundles); err != nil {
			t.Fatal(err)
		}
		c, err := db.Collection(ctx, contract)
		if err != nil {
			t.Fatal(err)
		}
		if c.Height != firstH || !bytes.Equal(c.Creator, firstSigner) || !c.Time.Equal(m.bundles[firstH-1].Block.Time) {
			t.Errorf("got height %d creator %x, want %d %x", c.Height, c.Creator, firstH, firstSigner)
		}
	})
}

func ownersColls(nm nftModel, owner []byte) []int {
	set := map[int]bool{}
	for _, t := range nm.tokens {
		if bytes.Equal(t.Owner, owner) {
			set[int(t.Collection[0]-0xc0)] = true
		}
	}
	var out []int
	for i := range 3 {
		if set[i] {
			out = append(out, i)
		}
	}
	// Ordered by collection height, which is the index order here.
	return out
}

// TestNFTMintIfMissing: a transfer marked MintIfMissing adds a token the store does not hold
// (minted before the store's first height) with its owner and URI, and is a plain transfer
// of a token it holds; an unmarked transfer of an unknown token stays ignored.
func TestNFTMintIfMissing(t *testing.T) {
	m := buildModel(3)
	coll := acct(20)
	last := &m.bundles[len(m.bundles)-1]
	h := last.Block.Height
	last.Extensions = append(last.Extensions, &NFTRows{NFTs: []NFTChange{
		{Kind: NFTCreateCollection, TxIndex: 0, Collection: coll, Name: "Early", Creator: acct(1)},
		{Kind: NFTTransfer, TxIndex: 0, Edge: true, Collection: coll, TokenID: "1", Owner: acct(2), URI: "u1", MintIfMissing: true},
		{Kind: NFTTransfer, TxIndex: 0, Edge: true, Collection: coll, TokenID: "2", Owner: acct(2), URI: "u2"},
		{Kind: NFTMint, TxIndex: 0, Edge: true, Collection: coll, TokenID: "3", Owner: acct(3), URI: "minted"},
		{Kind: NFTTransfer, TxIndex: 0, Edge: true, Collection: coll, TokenID: "3", Owner: acct(4), URI: "ignored", MintIfMissing: true},
	}})
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, m.bundles); err != nil {
			t.Fatal(err)
		}
		got, err := db.Tokens(ctx, TokenFilter{Collection: coll}, Page{Limit: 10}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]struct {
			owner []byte
			uri   string
		}{"1": {acct(2), "u1"}, "3": {acct(4), "minted"}}
		if len(got.Tokens) != len(want) {
			t.Fatalf("tokens %+v, want ids 1 and 3", got.Tokens)
		}
		for _, tk := range got.Tokens {
			w := want[tk.TokenID]
			if !bytes.Equal(tk.Owner, w.owner) || tk.URI != w.uri || tk.Height != h {
				t.Errorf("token %s: owner %x uri %q height %d, want %x %q %d", tk.TokenID, tk.Owner, tk.URI, tk.Height, w.owner, w.uri, h)
			}
		}
		c, err := db.Collection(ctx, coll)
		if err != nil || c.NFTCount != 2 {
			t.Errorf("collection nfts.length %d (%v), want 2", c.NFTCount, err)
		}
	})
}
