// Package searchtest derives, from an indexed store, one search input of each kind the chain
// holds and checks the search route's first hit for each over HTTP: the table test shared by
// the captured chains (internal/indexer/conformance) and the devnet (internal/indexer/devnettest).
package searchtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// GetJSON decodes the 200 answer of u into v.
func GetJSON(t testing.TB, u string, v any) {
	t.Helper()
	status, _, body := testutil.Get(t, u)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

// Answer is the search route's body.
type Answer struct {
	Query   string `json:"query"`
	Results []struct {
		Type    string `json:"type"`
		ChainID string `json:"chain_id"`
		ID      string `json:"id"`
		Label   string `json:"label"`
		Height  *int64 `json:"height"`
		Route   string `json:"route"`
	} `json:"results"`
}

// Case is one input and the hit it must give first.
type Case struct {
	Name, Q         string
	Type, ID, Route string // want; Type "" means an empty list
}

// Cases derives one input of each kind the chain holds from its store, by fixed rules:
// the first tx, the first EVM tx, a height, the first signer, the first collection (by address
// and by the start of its name), its first token, the fee denom's rich list, and nonsense.
func Cases(t testing.TB, db *store.DB, chainID string, vm vmkind.Kind, denom string) []Case {
	t.Helper()
	ctx := context.Background()
	var cs []Case
	txs, err := db.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1})
	if err != nil || len(txs.Txs) == 0 {
		t.Fatalf("first tx: %v %d", err, len(txs.Txs))
	}
	var tx struct {
		TxHash string `json:"txhash"`
		Height string `json:"height"`
		Tx     struct {
			AuthInfo json.RawMessage `json:"auth_info"`
		} `json:"tx"`
	}
	if err := json.Unmarshal(txs.Txs[0].JSON, &tx); err != nil {
		t.Fatal(err)
	}
	cs = append(cs,
		Case{"tx_hash", tx.TxHash, "tx", tx.TxHash, "/indexer/tx/v1/txs/" + tx.TxHash},
		Case{"tx_hash_lower_0x", "0x" + strings.ToLower(tx.TxHash), "tx", tx.TxHash, "/indexer/tx/v1/txs/" + tx.TxHash},
		Case{"height", tx.Height, "block", tx.Height, "/indexer/block/v1/blocks/" + tx.Height},
	)
	if vm == vmkind.EVM {
		etx, err := db.EVMTxs(ctx, store.EVMTxFilter{}, store.Page{Limit: 1})
		if err != nil || len(etx.Txs) == 0 {
			t.Fatalf("first evm tx: %v", err)
		}
		var e struct {
			Hash string `json:"transactionHash"`
			From string `json:"from"`
		}
		if err := json.Unmarshal(etx.Txs[0].JSON, &e); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, Case{"evm_tx_hash", e.Hash, "evm_tx", e.Hash, "/indexer/tx/v1/evm-txs/" + e.Hash})
		from, err := address.ParseHex(e.From)
		if err != nil {
			t.Fatal(err)
		}
		b32, _ := address.Bech32("init", from)
		cs = append(cs, Case{"account_0x", e.From, "account", b32, "/indexer/tx/v1/txs/by_account/" + b32})
	}
	signers, err := db.Txs(ctx, store.TxFilter{}, store.Page{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range signers.Txs {
		var v struct {
			Tx struct {
				Body struct {
					Messages []map[string]any `json:"messages"`
				} `json:"body"`
			} `json:"tx"`
		}
		_ = json.Unmarshal(s.JSON, &v)
		for _, m := range v.Tx.Body.Messages {
			for _, k := range []string{"sender", "from_address", "signer"} {
				if a, ok := m[k].(string); ok && strings.HasPrefix(a, "init1") {
					cs = append(cs, Case{"account_bech32", a, "account", a, "/indexer/tx/v1/txs/by_account/" + a})
					goto signed
				}
			}
		}
	}
	t.Fatalf("%s: no bech32 sender in the first txs", chainID)
signed:
	cols, err := db.Collections(ctx, store.CollectionFilter{}, store.Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(cols.Collections) == 0 {
		t.Fatalf("%s: no collection", chainID)
	}
	col := cols.Collections[0]
	hx := address.Hex(col.Addr)
	cs = append(cs,
		Case{"collection_addr", hx, "nft_collection", hx, "/indexer/nft/v1/collections/" + hx},
		Case{"collection_name", col.Name, "nft_collection_name", hx, "/indexer/nft/v1/collections/" + hx},
		Case{"collection_name_prefix_upper", strings.ToUpper(store.NormalizeCollectionName(col.Name)[:3]), "nft_collection_name", "", ""},
	)
	toks, err := db.Tokens(ctx, store.TokenFilter{Collection: col.Addr}, store.Page{Limit: 1}, nil)
	if err != nil || len(toks.Tokens) == 0 {
		t.Fatalf("%s: first token: %v", chainID, err)
	}
	tid := toks.Tokens[0].TokenID
	cs = append(cs, Case{"token_in_collection", hx + "/" + tid, "nft", hx + "/" + tid,
		"/indexer/nft/v1/tokens/by_collection/" + hx + "?token_id=" + url.QueryEscape(tid)})
	if obj := toks.Tokens[0].ObjectAddr; len(obj) > 0 {
		// Move: the NFT by its object's address.
		cs = append(cs, Case{"nft_object", address.Hex(obj), "nft", hx + "/" + tid, ""})
	}
	if denom != "" {
		cs = append(cs, Case{"denom", denom, "denom", "", "/indexer/richlist/v1/" + denom})
	}
	cs = append(cs,
		Case{"nothing_name", "zzqqnothingmatches", "", "", ""},
		Case{"nothing_hash", strings.Repeat("ab", 32), "", "", ""},
		Case{"nothing_height", "999999999", "", "", ""},
		Case{"nothing_address", "0x" + strings.Repeat("12", 20), "", "", ""},
	)
	return cs
}

// Run asks the search route of the API at base each case and checks the first hit: its type,
// id, route and chain, and that the route answers 200; nothing-cases answer an empty list.
func Run(t *testing.T, base, chainID string, cases []Case) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var got Answer
			GetJSON(t, base+"/indexer/search/v1?q="+url.QueryEscape(tc.Q), &got)
			if tc.Type == "" {
				if got.Results == nil || len(got.Results) != 0 {
					t.Fatalf("q=%q: want an empty list, got %+v", tc.Q, got.Results)
				}
				return
			}
			if len(got.Results) == 0 {
				t.Fatalf("q=%q: no hit, want %s %s", tc.Q, tc.Type, tc.ID)
			}
			h := got.Results[0]
			if h.Type != tc.Type || (tc.ID != "" && h.ID != tc.ID) || (tc.Route != "" && h.Route != tc.Route) || h.ChainID != chainID {
				t.Fatalf("q=%q: first hit %+v, want %s %s %s", tc.Q, h, tc.Type, tc.ID, tc.Route)
			}
			if status, _, body := testutil.Get(t, base+h.Route); status != http.StatusOK {
				t.Fatalf("hit route %s: %d %s", h.Route, status, body)
			}
		})
	}
}

// RunAll checks the fleet's /all/ search at fleetURL: each chain's tx (chain id → tx hash) is
// found first on that chain, its route under the chain's base; nonsense is an empty list.
func RunAll(t *testing.T, fleetURL string, txByChain map[string]string) {
	for id, hash := range txByChain {
		var got Answer
		GetJSON(t, fleetURL+"/all/indexer/search/v1?q="+hash, &got)
		if len(got.Results) == 0 || got.Results[0].ChainID != id || got.Results[0].Type != "tx" || got.Results[0].Route != "/"+id+"/indexer/tx/v1/txs/"+hash {
			t.Errorf("/all/ search of %s's tx %s: %+v", id, hash, got.Results)
		}
	}
	var none Answer
	GetJSON(t, fleetURL+"/all/indexer/search/v1?q=zzqqnothingmatches", &none)
	if none.Results == nil || len(none.Results) != 0 {
		t.Errorf("/all/ search of nothing: %+v", none.Results)
	}
}

// ContractCase is the EVM contract case: the first contract emitting an ERC-20 Transfer that is
// no NFT collection, found by its code (the search needs the chain's JSON-RPC for it).
func ContractCase(t testing.TB, db *store.DB) Case {
	t.Helper()
	ctx := context.Background()
	etx, err := db.EVMTxs(ctx, store.EVMTxFilter{}, store.Page{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range etx.Txs {
		var x struct {
			Logs []struct {
				Address string   `json:"address"`
				Topics  []string `json:"topics"`
			} `json:"logs"`
		}
		if err := json.Unmarshal(r.JSON, &x); err != nil {
			t.Fatal(err)
		}
		for _, l := range x.Logs {
			a, err := address.ParseHex(l.Address)
			if err != nil || len(l.Topics) != 3 {
				continue
			}
			if _, err := db.Collection(ctx, a); err == nil {
				continue
			}
			hx := address.Hex(a)
			return Case{"contract", hx, "contract", hx, "/indexer/tx/v1/evm-txs/by_account/" + hx}
		}
	}
	t.Fatal("no ERC-20 contract in the first EVM txs")
	return Case{}
}
