package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// capturedChain is one captured chain ingested into a store.
type capturedChain struct {
	id string
	vm vmkind.Kind
	db *store.DB
}

// ingestCaptured replays a captured chain up to its last height into the store at dsn (the
// rich list on where the capture has a genesis to start it from).
func ingestCaptured(t *testing.T, fixture string, vm vmkind.Kind, dsn string) capturedChain {
	t.Helper()
	srv, err := replay.New(testutil.Fixture(t, fixture), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	chain := httptest.NewServer(srv)
	t.Cleanup(chain.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src, err := chainSource(chain.URL)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Result struct {
			NodeInfo struct {
				Network string `json:"network"`
			} `json:"node_info"`
			SyncInfo struct {
				Height string `json:"latest_block_height"`
			} `json:"sync_info"`
		} `json:"result"`
	}
	getJSONURL(t, chain.URL+"/status", &st)
	top, err := strconv.ParseInt(st.Result.SyncInfo.Height, 10, 64)
	if err != nil {
		t.Fatalf("capture status height %q: %v", st.Result.SyncInfo.Height, err)
	}
	p, err := ingest.New(profile.Ingest(ingest.Config{
		ChainID: st.Result.NodeInfo.Network, VMType: vm.String(), AccountPrefix: "init", RichList: vm != vmkind.Move,
		PollInterval: 10 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond,
		StopAtHeight: top,
	}, profile.Options{}), src, db, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(ctx); err != nil {
		t.Fatalf("ingest %s: %v", fixture, err)
	}
	return capturedChain{id: st.Result.NodeInfo.Network, vm: vm, db: db}
}

func getJSONURL(t *testing.T, u string, v any) {
	t.Helper()
	status, _, body := testutil.Get(t, u)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

type searchAnswer struct {
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

// searchCase is one input and the hit it must give first.
type searchCase struct {
	name, q        string
	typ, id, route string // want; typ "" means an empty list
}

// searchCases derives one input of each kind the chain holds from its store, by fixed rules:
// the first tx, the first EVM tx, a height, the first signer, the first collection (by address
// and by the start of its name), its first token, the fee denom's rich list, and nonsense.
func searchCases(t *testing.T, c capturedChain) []searchCase {
	t.Helper()
	ctx := context.Background()
	var cs []searchCase
	txs, err := c.db.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1})
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
		searchCase{"tx_hash", tx.TxHash, "tx", tx.TxHash, "/indexer/tx/v1/txs/" + tx.TxHash},
		searchCase{"tx_hash_lower_0x", "0x" + strings.ToLower(tx.TxHash), "tx", tx.TxHash, "/indexer/tx/v1/txs/" + tx.TxHash},
		searchCase{"height", tx.Height, "block", tx.Height, "/indexer/block/v1/blocks/" + tx.Height},
	)
	if c.vm == vmkind.EVM {
		etx, err := c.db.EVMTxs(ctx, store.EVMTxFilter{}, store.Page{Limit: 1})
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
		cs = append(cs, searchCase{"evm_tx_hash", e.Hash, "evm_tx", e.Hash, "/indexer/tx/v1/evm-txs/" + e.Hash})
		from, err := address.ParseHex(e.From)
		if err != nil {
			t.Fatal(err)
		}
		b32, _ := address.Bech32("init", from)
		cs = append(cs, searchCase{"account_0x", e.From, "account", b32, "/indexer/tx/v1/txs/by_account/" + b32})
	}
	signers, err := c.db.Txs(ctx, store.TxFilter{}, store.Page{Limit: 50})
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
					cs = append(cs, searchCase{"account_bech32", a, "account", a, "/indexer/tx/v1/txs/by_account/" + a})
					goto signed
				}
			}
		}
	}
	t.Fatalf("%s: no bech32 sender in the first txs", c.id)
signed:
	cols, err := c.db.Collections(ctx, store.CollectionFilter{}, store.Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(cols.Collections) == 0 {
		t.Fatalf("%s: no collection", c.id)
	}
	col := cols.Collections[0]
	hx := address.Hex(col.Addr)
	cs = append(cs,
		searchCase{"collection_addr", hx, "nft_collection", hx, "/indexer/nft/v1/collections/" + hx},
		searchCase{"collection_name", col.Name, "nft_collection_name", hx, "/indexer/nft/v1/collections/" + hx},
		searchCase{"collection_name_prefix_upper", strings.ToUpper(store.NormalizeCollectionName(col.Name)[:3]), "nft_collection_name", "", ""},
	)
	toks, err := c.db.Tokens(ctx, store.TokenFilter{Collection: col.Addr}, store.Page{Limit: 1}, nil)
	if err != nil || len(toks.Tokens) == 0 {
		t.Fatalf("%s: first token: %v", c.id, err)
	}
	tid := toks.Tokens[0].TokenID
	cs = append(cs, searchCase{"token_in_collection", hx + "/" + tid, "nft", hx + "/" + tid,
		"/indexer/nft/v1/tokens/by_collection/" + hx + "?token_id=" + url.QueryEscape(tid)})
	// The fee denom of the capture's genesis: a bank denom on Wasm, an alias of its ERC-20 on
	// EVM (the Move capture has no genesis to start the rich list from).
	switch c.vm {
	case vmkind.Wasm:
		cs = append(cs, searchCase{"denom", "umin", "denom", "umin", "/indexer/richlist/v1/umin"})
	case vmkind.EVM:
		cs = append(cs, searchCase{"denom_alias", "GAS", "denom", "", "/indexer/richlist/v1/GAS"})
	}
	cs = append(cs,
		searchCase{"nothing_name", "zzqqnothingmatches", "", "", ""},
		searchCase{"nothing_hash", strings.Repeat("ab", 32), "", "", ""},
		searchCase{"nothing_height", "999999999", "", "", ""},
		searchCase{"nothing_address", "0x" + strings.Repeat("12", 20), "", "", ""},
	)
	return cs
}

// TestSearchCaptured: on each captured real chain, in SQLite and PostgreSQL, one input of each
// kind gives the right hit first (type, id and a route that answers 200), and a string that
// matches nothing answers 200 with an empty list.
func TestSearchCaptured(t *testing.T) {
	chains := []struct {
		fixture string
		vm      vmkind.Kind
	}{{"minievm", vmkind.EVM}, {"minimove", vmkind.Move}, {"miniwasm", vmkind.Wasm}}
	backends := []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "index.db") }},
		{"postgres", func(t *testing.T) string { return testutil.PostgresDSN(t) }},
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			var fleet []api.FleetChain
			var firstTx = map[string]string{}
			for _, ch := range chains {
				c := ingestCaptured(t, ch.fixture, ch.vm, be.dsn(t))
				feat := profile.For(ch.vm).API(c.db, profile.Options{})
				srv := httptest.NewServer(api.New(api.Config{ChainID: c.id, Features: feat, AccountPrefix: "init"}, c.db, nil, nil))
				t.Cleanup(srv.Close)
				cases := searchCases(t, c)
				firstTx[c.id] = cases[0].q
				fleet = append(fleet, api.FleetChain{ID: c.id, VMType: ch.vm.String(), AccountPrefix: "init", Base: "/" + c.id, Ready: true, Reader: c.db, Features: feat})
				for _, tc := range cases {
					t.Run(ch.fixture+"/"+tc.name, func(t *testing.T) {
						var got searchAnswer
						getJSONURL(t, srv.URL+"/indexer/search/v1?q="+url.QueryEscape(tc.q), &got)
						if tc.typ == "" {
							if got.Results == nil || len(got.Results) != 0 {
								t.Fatalf("q=%q: want an empty list, got %+v", tc.q, got.Results)
							}
							return
						}
						if len(got.Results) == 0 {
							t.Fatalf("q=%q: no hit, want %s %s", tc.q, tc.typ, tc.id)
						}
						h := got.Results[0]
						if h.Type != tc.typ || (tc.id != "" && h.ID != tc.id) || (tc.route != "" && h.Route != tc.route) || h.ChainID != c.id {
							t.Fatalf("q=%q: first hit %+v, want %s %s %s", tc.q, h, tc.typ, tc.id, tc.route)
						}
						if status, _, body := testutil.Get(t, srv.URL+h.Route); status != http.StatusOK {
							t.Fatalf("hit route %s: %d %s", h.Route, status, body)
						}
					})
				}
			}
			// Across the fleet: each chain's first tx is found on that chain, under its base.
			fs := httptest.NewServer(api.NewFleet(api.FleetConfig{Chains: func() []api.FleetChain { return fleet }}, nil, nil))
			t.Cleanup(fs.Close)
			for id, hash := range firstTx {
				var got searchAnswer
				getJSONURL(t, fs.URL+"/all/indexer/search/v1?q="+hash, &got)
				if len(got.Results) == 0 || got.Results[0].ChainID != id || got.Results[0].Type != "tx" || got.Results[0].Route != "/"+id+"/indexer/tx/v1/txs/"+hash {
					t.Errorf("/all/ search of %s's first tx: %+v", id, got.Results)
				}
			}
			var none searchAnswer
			getJSONURL(t, fs.URL+"/all/indexer/search/v1?q=zzqqnothingmatches", &none)
			if none.Results == nil || len(none.Results) != 0 {
				t.Errorf("/all/ search of nothing: %+v", none.Results)
			}
		})
	}
}
