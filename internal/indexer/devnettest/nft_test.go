package devnettest

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/testutil"
)

// chainToken is a live token as the devnet's own state holds it.
type chainToken struct {
	owner []byte
	uri   string
}

// chainNFTs reads every collection and live token out of the rollup's VM state at tip: the
// devnet's ground truth, independent of anything the indexer saw. Collections map 0x-hex
// address → token id → token. An EVM contract appears once it minted (before that no log
// names it).
func chainNFTs(t testing.TB, c *devnet.Chain, tip int64) map[string]map[string]chainToken {
	t.Helper()
	nfts, err := c.NFTs(tip)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]map[string]chainToken, len(nfts))
	for coll, toks := range nfts {
		out[coll] = make(map[string]chainToken, len(toks))
		for id, tk := range toks {
			out[coll][id] = chainToken{tk.Owner, tk.URI}
		}
	}
	return out
}

// checkNFTs is the NFT ground truth: every collection of the devnet's state is served, its
// nfts.length equals the number of tokens tokens/by_collection returns when followed to the
// end by next_key, which equals the chain's live tokens, each with the chain's owner and URI;
// the collection list holds exactly the chain's collections.
func checkNFTs(t testing.TB, kind string, h http.Handler, c *devnet.Chain, tip int64) {
	t.Helper()
	want := chainNFTs(t, c, tip)
	if len(want) == 0 {
		t.Fatalf("%s: the devnet holds no NFT collection", kind)
	}
	var list struct {
		Collections []struct {
			ObjectAddr string `json:"object_addr"`
		} `json:"collections"`
		Pagination struct {
			Total string `json:"total"`
		} `json:"pagination"`
	}
	getJSON(t, h, "/indexer/nft/v1/collections?pagination.limit=1000", &list)
	if len(list.Collections) != len(want) || list.Pagination.Total != itoa(len(want)) {
		t.Errorf("%s: %d collections listed (total %s), the chain has %d", kind, len(list.Collections), list.Pagination.Total, len(want))
	}
	tokens := 0
	for coll, toks := range want {
		var one struct {
			Collection struct {
				Collection struct {
					NFTs struct {
						Length int `json:"length"`
					} `json:"nfts"`
				} `json:"collection"`
			} `json:"collection"`
		}
		getJSON(t, h, "/indexer/nft/v1/collections/"+coll, &one)
		got := servedTokens(t, kind, h, coll)
		if one.Collection.Collection.NFTs.Length != len(got) || len(got) != len(toks) {
			t.Errorf("%s %s: nfts.length %d, %d tokens paged, %d on the chain", kind, coll, one.Collection.Collection.NFTs.Length, len(got), len(toks))
		}
		for id, w := range toks {
			g, ok := got[id]
			switch {
			case !ok:
				t.Errorf("%s %s: token %s (on the chain) not served", kind, coll, id)
			case string(g.owner) != string(w.owner) || g.uri != w.uri:
				t.Errorf("%s %s token %s: served owner %x uri %q, the chain has %x %q", kind, coll, id, g.owner, g.uri, w.owner, w.uri)
			}
		}
		tokens += len(toks)
	}
	t.Logf("%s NFTs = the devnet's state: %d collections, %d live tokens", kind, len(want), tokens)
}

// servedTokens pages tokens/by_collection of a collection to the end (3 per page) and returns
// the tokens served, by id.
func servedTokens(t testing.TB, kind string, h http.Handler, coll string) map[string]chainToken {
	t.Helper()
	got := map[string]chainToken{}
	key := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("%s %s: tokens/by_collection does not end", kind, coll)
		}
		var page struct {
			Tokens []struct {
				Owner string `json:"owner"`
				NFT   struct {
					TokenID string `json:"token_id"`
					URI     string `json:"uri"`
				} `json:"nft"`
			} `json:"tokens"`
			Pagination struct {
				NextKey *string `json:"next_key"`
			} `json:"pagination"`
		}
		path := "/indexer/nft/v1/tokens/by_collection/" + coll + "?pagination.limit=3"
		if key != "" {
			path += "&pagination.key=" + url.QueryEscape(key)
		}
		getJSON(t, h, path, &page)
		for _, tk := range page.Tokens {
			owner, err := address.FromBech32("init", tk.Owner)
			if err != nil {
				t.Fatalf("%s %s token %s: owner %q", kind, coll, tk.NFT.TokenID, tk.Owner)
			}
			if _, dup := got[tk.NFT.TokenID]; dup {
				t.Errorf("%s %s: token %s served twice", kind, coll, tk.NFT.TokenID)
			}
			got[tk.NFT.TokenID] = chainToken{owner, tk.NFT.URI}
		}
		if page.Pagination.NextKey == nil {
			break
		}
		key = *page.Pagination.NextKey
	}
	return got
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// burnedToken is the first burned token (lowest collection address, then token id) of the store
// at dsn: a token the store has seen (nft_dict) and holds no more (nft). checkNFTs has already
// shown the store's live tokens are the chain's, so it is one the chain burned. The API says
// nothing of burned tokens, so the store is asked directly.
func burnedToken(t testing.TB, dsn string) (coll, id string) {
	t.Helper()
	db, err := testutil.OpenRawStore(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var addr []byte
	err = db.QueryRow(`SELECT d.collection_addr, d.token_id FROM nft_dict d
		WHERE NOT EXISTS (SELECT 1 FROM nft n WHERE n.collection_addr = d.collection_addr AND n.token_id = d.token_id)
		ORDER BY d.collection_addr, d.token_id LIMIT 1`).Scan(&addr, &id)
	if err != nil {
		t.Fatalf("no burned token in the store (the devnet's traffic burns some): %v", err)
	}
	return address.Hex(addr), id
}

// nftCases are the NFT goldens of one rollup, with parameters picked from the indexed chain by
// fixed rules (so they depend on the devnet seed only): the collection with the most tokens
// (ties: the lowest address), its first token in token_id order and that token's owner, and the
// first burned token of the store at dsn.
func nftCases(t testing.TB, h http.Handler, dsn string) []gcase {
	t.Helper()
	var list struct {
		Collections []struct {
			ObjectAddr string `json:"object_addr"`
			Collection struct {
				Name string `json:"name"`
				NFTs struct {
					Length int `json:"length"`
				} `json:"nfts"`
			} `json:"collection"`
		} `json:"collections"`
	}
	getJSON(t, h, "/indexer/nft/v1/collections?pagination.limit=1000&pagination.reverse=false", &list)
	if len(list.Collections) == 0 {
		t.Fatal("no NFT collection indexed")
	}
	best := list.Collections[0]
	for _, c := range list.Collections[1:] {
		if c.Collection.NFTs.Length > best.Collection.NFTs.Length ||
			(c.Collection.NFTs.Length == best.Collection.NFTs.Length && c.ObjectAddr < best.ObjectAddr) {
			best = c
		}
	}
	coll := best.ObjectAddr
	var toks struct {
		Tokens []struct {
			Owner string `json:"owner"`
			NFT   struct {
				TokenID string `json:"token_id"`
			} `json:"nft"`
		} `json:"tokens"`
	}
	getJSON(t, h, "/indexer/nft/v1/tokens/by_collection/"+coll+"?pagination.reverse=false&pagination.limit=1", &toks)
	if len(toks.Tokens) == 0 {
		t.Fatalf("collection %s has no token", coll)
	}
	owner, id := toks.Tokens[0].Owner, url.PathEscape(toks.Tokens[0].NFT.TokenID)
	burnedColl, burnedID := burnedToken(t, dsn)
	const n = "/indexer/nft/v1"
	byColl := n + "/tokens/by_collection/" + coll
	return []gcase{
		{"nft_collections", n + "/collections", ""},
		{"nft_collections_asc_limit2", n + "/collections?pagination.reverse=false&pagination.limit=2", ""},
		{"nft_collections_asc_limit2_next", n + "/collections?pagination.reverse=false&pagination.limit=2", "nft_collections_asc_limit2"},
		{"nft_collections_count_total_false", n + "/collections?pagination.limit=3&pagination.count_total=false", ""},
		{"nft_collections_walk", n + "/collections?pagination.limit=2", walk},
		{"nft_collections_by_account", n + "/collections/by_account/" + owner, ""},
		{"nft_collections_by_account_unknown", n + "/collections/by_account/0x000000000000000000000000000000000000dEaD", ""},
		{"nft_collections_by_name_spaces", n + "/collections/by_name/" + url.PathEscape(best.Collection.Name), ""},
		{"nft_collections_by_name_lower_part", n + "/collections/by_name/" + url.PathEscape(strings.ToLower(lastWord(best.Collection.Name))), ""},
		{"nft_collection", n + "/collections/" + coll, ""},
		{"ERR_nft_collection_unknown", n + "/collections/0x000000000000000000000000000000000000dEaD", ""},
		{"nft_tokens_by_collection", byColl, ""},
		{"nft_tokens_by_collection_height_asc", byColl + "?order_by=height&pagination.reverse=false", ""},
		{"nft_tokens_by_collection_limit1", byColl + "?pagination.limit=1", ""},
		{"nft_tokens_by_collection_limit1_next", byColl + "?pagination.limit=1", "nft_tokens_by_collection_limit1"},
		{"nft_tokens_by_collection_offset1", byColl + "?pagination.limit=1&pagination.offset=1", ""},
		{"nft_tokens_by_collection_token_id", byColl + "?token_id=" + id, ""},
		{"nft_tokens_by_collection_count_total_false", byColl + "?pagination.count_total=false", ""},
		{"nft_tokens_by_collection_walk", byColl + "?pagination.limit=2", walk},
		{"nft_tokens_by_collection_height_walk", byColl + "?order_by=height&pagination.reverse=false&pagination.limit=2", walk},
		{"nft_tokens_by_collection_burned", n + "/tokens/by_collection/" + burnedColl + "?token_id=" + url.QueryEscape(burnedID), ""},
		{"nft_txs_burned_token", n + "/txs/" + burnedColl + "/" + url.PathEscape(burnedID), ""},
		{"ERR_nft_tokens_by_collection_order_by", byColl + "?order_by=owner", ""},
		{"nft_tokens_by_account", n + "/tokens/by_account/" + owner, ""},
		{"nft_tokens_by_account_height", n + "/tokens/by_account/" + owner + "?order_by=height", ""},
		{"nft_tokens_by_account_collection", n + "/tokens/by_account/" + owner + "?collection_addr=" + coll, ""},
		{"nft_tokens_by_account_unknown", n + "/tokens/by_account/0x000000000000000000000000000000000000dEaD", ""},
		{"nft_tokens_by_account_walk", n + "/tokens/by_account/" + owner + "?pagination.limit=2", walk},
		{"nft_txs", n + "/txs/" + coll + "/" + id, ""},
		{"nft_txs_asc_limit1", n + "/txs/" + coll + "/" + id + "?pagination.reverse=false&pagination.limit=1", ""},
		{"nft_txs_unknown_token", n + "/txs/" + coll + "/no-such-token", ""},
	}
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return s
	}
	return f[len(f)-1]
}

// checkEVMNFTsFrom is the NFT ground truth of an EVM store started at height start: a live
// token is served, with the chain's owner and URI at tip, exactly when an ERC-721 Transfer log
// named it at start or later (a token minted before start is learnt from its first later
// transfer; one untouched since is unknown, as at rollytics). It returns how many served
// tokens were minted before start, so a caller can require that case to occur.
func checkEVMNFTsFrom(t testing.TB, h http.Handler, c *devnet.Chain, start, tip int64) (backfilled int) {
	t.Helper()
	const transfer = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
	touched := map[string]map[string]bool{} // collection → token ids with a log at ≥ start
	mintedLate := map[string]bool{}         // collection/token minted at ≥ start
	for ht := start; ht <= tip; ht++ {
		b, err := c.Block(ht)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.Results {
			if r.Code != 0 {
				continue
			}
			for _, ev := range r.Events {
				if ev.Type != evmEvent {
					continue
				}
				for _, a := range ev.Attributes {
					var l struct {
						Address string   `json:"address"`
						Topics  []string `json:"topics"`
					}
					if a.Key != "log" || json.Unmarshal([]byte(a.Value), &l) != nil || len(l.Topics) != 4 || l.Topics[0] != transfer {
						continue
					}
					coll := strings.ToLower(l.Address)
					id, _ := new(big.Int).SetString(strings.TrimPrefix(l.Topics[3], "0x"), 16)
					if touched[coll] == nil {
						touched[coll] = map[string]bool{}
					}
					touched[coll][id.String()] = true
					if new(big.Int).SetBytes(common32(l.Topics[1])).Sign() == 0 {
						mintedLate[coll+"/"+id.String()] = true
					}
				}
			}
		}
	}
	state := chainNFTs(t, c, tip)
	for coll, ids := range touched {
		want := map[string]chainToken{}
		for id := range ids {
			if tk, live := state[coll][id]; live {
				want[id] = tk
				if !mintedLate[coll+"/"+id] {
					backfilled++
				}
			}
		}
		got := servedTokens(t, "evm", h, coll)
		if len(got) != len(want) {
			t.Errorf("evm %s from height %d: %d tokens served, %d live tokens with a transfer since", coll, start, len(got), len(want))
		}
		for id, w := range want {
			if g, ok := got[id]; !ok || string(g.owner) != string(w.owner) || g.uri != w.uri {
				t.Errorf("evm %s token %s: served %v (%v), the chain has owner %x uri %q", coll, id, g, ok, w.owner, w.uri)
			}
		}
	}
	return backfilled
}

func common32(topic string) []byte {
	b, _ := hex.DecodeString(strings.TrimPrefix(topic, "0x"))
	return b
}

// evmEvent is the chain's event type of EVM logs (an event type, not a VM kind).
const evmEvent = "evm"
