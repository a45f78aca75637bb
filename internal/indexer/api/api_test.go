package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// The dataset: the minievm chain as rollytics served it (testdata/chain.json, real blocks and
// real tx JSON), re-ingested through store.Writer with a small account extractor below.

type fixtureBlock struct {
	ChainID   string          `json:"chain_id"`
	Height    string          `json:"height"`
	Hash      string          `json:"hash"`
	BlockTime string          `json:"block_time"`
	Timestamp time.Time       `json:"timestamp"`
	GasUsed   string          `json:"gas_used"`
	GasWanted string          `json:"gas_wanted"`
	TotalFee  json.RawMessage `json:"total_fee"`
	Proposer  *store.Proposer `json:"proposer"`
}

type fixtureTx struct {
	TxHash string `json:"txhash"`
	Height string `json:"height"`
	Tx     struct {
		Body struct {
			Messages []struct {
				Type string `json:"@type"`
			} `json:"messages"`
		} `json:"body"`
	} `json:"tx"`
	Events []struct {
		Type       string `json:"type"`
		Attributes []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"attributes"`
	} `json:"events"`
}

var (
	bechRe  = regexp.MustCompile(`^init1(?:[a-z0-9]{38}|[a-z0-9]{58})$`)
	hexRe   = regexp.MustCompile(`^0x[a-fA-F0-9]{40}$`)
	topicRe = regexp.MustCompile(`"0x000000000000000000000000([a-fA-F0-9]{40})"`)
)

func mustInt(t testing.TB, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// loadChain turns testdata/chain.json into bundles. The signer is the fee payer; the other
// accounts are the bech32 or 0x values of event attributes and the address topics of EVM logs.
func loadChain(t testing.TB) []store.BlockBundle {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "chain.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Blocks []fixtureBlock    `json:"blocks"`
		Txs    []json.RawMessage `json:"txs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	txsAt := map[int64][]store.Tx{}
	transfersAt := map[int64]store.TransferRows{}
	for _, raw := range doc.Txs {
		var ft fixtureTx
		if err := json.Unmarshal(raw, &ft); err != nil {
			t.Fatal(err)
		}
		h := mustInt(t, ft.Height)
		hash, err := hex.DecodeString(ft.TxHash)
		if err != nil {
			t.Fatal(err)
		}
		tx := store.Tx{Hash: hash, Height: h, Index: len(txsAt[h]), JSON: raw}
		for _, m := range ft.Tx.Body.Messages {
			tx.MsgTypes = append(tx.MsgTypes, strings.TrimPrefix(m.Type, "/"))
		}
		seen := map[string]bool{}
		add := func(s string, signer bool) {
			a, err := address.Parse("init", s)
			if err != nil || seen[string(a)] {
				return
			}
			seen[string(a)] = true
			tx.Accounts = append(tx.Accounts, store.TxAccount{Addr: a, Signer: signer})
			if signer {
				tx.Signer = a
			}
		}
		for _, e := range ft.Events {
			for _, a := range e.Attributes {
				if a.Key == "fee_payer" && tx.Signer == nil {
					add(a.Value, true)
				}
			}
		}
		for _, e := range ft.Events {
			for _, a := range e.Attributes {
				if e.Type == evmEvent && a.Key == "log" {
					for _, m := range topicRe.FindAllStringSubmatch(a.Value, -1) {
						add("0x"+m[1], false)
					}
				}
				for _, piece := range strings.Split(a.Value, ",") {
					if bechRe.MatchString(piece) || hexRe.MatchString(piece) {
						add(piece, false)
					}
				}
			}
		}
		// The transfers are read from the tx's events by ingestion's own reading (EVM).
		var evs []ingest.Event
		for _, e := range ft.Events {
			ie := ingest.Event{Type: e.Type}
			for _, a := range e.Attributes {
				ie.Attributes = append(ie.Attributes, ingest.EventAttribute{Key: a.Key, Value: a.Value})
			}
			evs = append(evs, ie)
		}
		trs, err := ingest.TxTransfers(context.Background(), ingest.EVMTransfers(), "init", tx.Index, evs)
		if err != nil {
			t.Fatal(err)
		}
		transfersAt[h] = append(transfersAt[h], trs...)
		txsAt[h] = append(txsAt[h], tx)
	}
	var out []store.BlockBundle
	for _, fb := range doc.Blocks {
		h := mustInt(t, fb.Height)
		hash, err := hex.DecodeString(fb.Hash)
		if err != nil {
			t.Fatal(err)
		}
		blk := store.Block{ChainID: fb.ChainID, Height: h, Hash: hash, Time: fb.Timestamp.UTC(), BlockTimeMs: mustInt(t, fb.BlockTime),
			Proposer: fb.Proposer, GasUsed: mustInt(t, fb.GasUsed), GasWanted: mustInt(t, fb.GasWanted), TxCount: len(txsAt[h])}
		if len(txsAt[h]) > 0 {
			blk.TotalFee = fb.TotalFee
		}
		bb := store.BlockBundle{Block: blk, Txs: txsAt[h]}
		if len(transfersAt[h]) > 0 {
			bb.Extensions = []store.ExtensionRows{transfersAt[h]}
		}
		out = append(out, bb)
	}
	return out
}

// openLoaded opens a store and writes the dataset in two batches, as ingestion would.
func openLoaded(t testing.TB, dsn string) store.Store {
	t.Helper()
	db, err := store.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	bundles := loadChain(t)
	if err := db.WriteBlocks(context.Background(), bundles[:30]); err != nil {
		t.Fatal(err)
	}
	if err := db.WriteBlocks(context.Background(), bundles[30:]); err != nil {
		t.Fatal(err)
	}
	return db
}

// backends returns a loaded store per backend.
func backends(*testing.T) map[string]func(t *testing.T) store.Store {
	return map[string]func(t *testing.T) store.Store{
		"sqlite":   func(t *testing.T) store.Store { return openLoaded(t, "sqlite:"+filepath.Join(t.TempDir(), "idx.db")) },
		"postgres": func(t *testing.T) store.Store { return openLoaded(t, testutil.PostgresDSN(t)) },
	}
}

var testCfg = Config{ChainID: "local-evm-1", Version: "v0.0.0-test", CommitHash: "0123abc"}

// evmStore is a store with everything an EVM chain's API reads.
type evmStore interface {
	store.Reader
	store.EVMReader
	store.RichListReader
	store.TransferReader
}

// evmFeatures are what the EVM profile adds to the API of a chain served from st: EVM txs,
// internal txs, the rich list in 0x hex (internal/indexer/profile hands real chains the same;
// this package cannot import it).
func evmFeatures(st evmStore) Features {
	f := Features{EVMTxs: st, InternalTxs: true, RichList: st, HexHolders: true, Etherscan: &Etherscan{}, Transfers: st, TransfersHex: true}
	if r, ok := st.(store.EVMRangeReader); ok {
		f.Etherscan.Range = r
	}
	return f
}

// newEVM is New for cfg's chain as an EVM chain served from st (testCfg's chain is one).
func newEVM(cfg Config, st evmStore, logger *slog.Logger, reg *prometheus.Registry) http.Handler {
	cfg.Features = evmFeatures(st)
	return New(cfg, st, logger, reg)
}

func do(h http.Handler, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "http://idx.test"+path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// b64 is a pagination key as a client sends it: base64, then query-escaped.
func b64(s string) string { return url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(s))) }

const (
	acc1    = "init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct"
	acc1Hex = "8c8d35429f74ec245f8ef2f4fd1e551cff97d650"
	acc2    = "init1nrjs8u6apgqeev9z2xkjgwjvel8nw86x8vkeuz"
	val     = "init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz"
	txSend  = "F064CD3FCB0431F6869848082A50105C697D1F7970CF85F1FF676790F872D5FE"
)

// goldenCases are the representative requests; every one is answered identically by both
// backends, from the same golden file.
var goldenCases = []struct{ name, path string }{
	{"status", "/status"},
	{"blocks_limit2", "/indexer/block/v1/blocks?pagination.limit=2"},
	{"blocks_limit2_page2", "/indexer/block/v1/blocks?pagination.limit=2&pagination.key=" + b64(`{"height":71}`)},
	{"blocks_limit2_reverse_false", "/indexer/block/v1/blocks?pagination.limit=2&pagination.reverse=false"},
	{"blocks_limit2_reverse_false_page2", "/indexer/block/v1/blocks?pagination.limit=2&pagination.reverse=false&pagination.key=" + b64(`{"height":2}`)},
	{"blocks_offset70", "/indexer/block/v1/blocks?pagination.limit=5&pagination.offset=70"},
	{"blocks_offset_key", "/indexer/block/v1/blocks?pagination.limit=2&pagination.key=" + b64("3")},
	{"blocks_sequence_key", "/indexer/block/v1/blocks?pagination.limit=2&pagination.key=" + b64(`{"sequence":5}`)},
	{"blocks_count_total_false", "/indexer/block/v1/blocks?pagination.limit=1&pagination.count_total=false"},
	{"blocks_past_end", "/indexer/block/v1/blocks?pagination.limit=2&pagination.key=" + b64(`{"height":1}`)},
	{"block_35", "/indexer/block/v1/blocks/35"},
	{"block_2_empty", "/indexer/block/v1/blocks/2"},
	{"block_trailing_slash", "/indexer/block/v1/blocks/35/"},
	{"ERR_block_not_found", "/indexer/block/v1/blocks/999999"},
	{"ERR_block_neg1", "/indexer/block/v1/blocks/-1"},
	{"ERR_block_0", "/indexer/block/v1/blocks/0"},
	{"ERR_block_abc", "/indexer/block/v1/blocks/abc"},
	{"ERR_block_huge", "/indexer/block/v1/blocks/99999999999999999999"},
	{"avg_blocktime", "/indexer/block/v1/avg_blocktime"},
	{"txs_count", "/indexer/tx/v1/txs/count"},
	{"txs_count_params_ignored", "/indexer/tx/v1/txs/count?pagination.limit=1&pagination.count_total=false"},
	{"txs_limit2", "/indexer/tx/v1/txs?pagination.limit=2"},
	{"txs_limit2_page2", "/indexer/tx/v1/txs?pagination.limit=2&pagination.key=" + b64(`{"sequence":33}`)},
	{"txs_limit2_reverse_false", "/indexer/tx/v1/txs?pagination.limit=2&pagination.reverse=false"},
	{"txs_limit2_reverse_false_page2", "/indexer/tx/v1/txs?pagination.limit=2&pagination.reverse=false&pagination.key=" + b64(`{"sequence":2}`)},
	{"txs_offset32", "/indexer/tx/v1/txs?pagination.limit=5&pagination.offset=32"},
	{"txs_offset_key", "/indexer/tx/v1/txs?pagination.limit=1&pagination.key=" + b64("10")},
	{"txs_height_key", "/indexer/tx/v1/txs?pagination.limit=2&pagination.key=" + b64(`{"height":23}`)},
	{"txs_count_total_false", "/indexer/tx/v1/txs?pagination.limit=1&pagination.count_total=false"},
	{"txs_past_end", "/indexer/tx/v1/txs?pagination.key=" + b64(`{"sequence":1}`)},
	{"txs_msgs_MsgCall", "/indexer/tx/v1/txs?msgs=minievm.evm.v1.MsgCall&pagination.limit=2"},
	{"txs_msgs_MsgCall_page2", "/indexer/tx/v1/txs?msgs=minievm.evm.v1.MsgCall&pagination.limit=2&pagination.key=" + b64(`{"sequence":21}`)},
	{"txs_msgs_repeated", "/indexer/tx/v1/txs?msgs=minievm.evm.v1.MsgCall&msgs=cosmos.bank.v1beta1.MsgSend&pagination.limit=1"},
	{"txs_msgs_comma", "/indexer/tx/v1/txs?msgs=minievm.evm.v1.MsgCall,cosmos.bank.v1beta1.MsgSend&pagination.limit=1"},
	{"txs_msgs_leading_slash", "/indexer/tx/v1/txs?msgs=/cosmos.bank.v1beta1.MsgMultiSend"}, // as in a tx's @type: the same txs as without the slash
	{"txs_msgs_MsgMultiSend", "/indexer/tx/v1/txs?msgs=cosmos.bank.v1beta1.MsgMultiSend"},
	{"txs_msgs_unknown", "/indexer/tx/v1/txs?msgs=no.such.Msg"},
	{"txs_msgs_unknown_and_known", "/indexer/tx/v1/txs?msgs=no.such.Msg,cosmos.bank.v1beta1.MsgSend&pagination.limit=1"},
	{"txs_msgs_empty_value", "/indexer/tx/v1/txs?msgs=&pagination.limit=1&pagination.count_total=false"},
	{"txs_by_account_acc1", "/indexer/tx/v1/txs/by_account/" + acc1 + "?pagination.limit=2"},
	{"txs_by_account_acc1_page2", "/indexer/tx/v1/txs/by_account/" + acc1 + "?pagination.limit=2&pagination.key=" + b64(`{"sequence":32}`)},
	{"txs_by_account_acc1_offset1", "/indexer/tx/v1/txs/by_account/" + acc1 + "?pagination.limit=2&pagination.offset=1"},
	{"txs_by_account_acc1_reverse_false", "/indexer/tx/v1/txs/by_account/" + acc1 + "?pagination.limit=2&pagination.reverse=false"},
	{"txs_by_account_acc1_hex_upper", "/indexer/tx/v1/txs/by_account/0x" + strings.ToUpper(acc1Hex) + "?pagination.limit=1"},
	{"txs_by_account_acc1_hex_no0x", "/indexer/tx/v1/txs/by_account/" + acc1Hex + "?pagination.limit=1"},
	{"txs_by_account_acc1_bech32_upper", "/indexer/tx/v1/txs/by_account/" + strings.ToUpper(acc1) + "?pagination.limit=1"},
	{"txs_by_account_acc2_is_signer", "/indexer/tx/v1/txs/by_account/" + acc2 + "?is_signer=true&pagination.limit=2"},
	{"txs_by_account_acc2_not_signer", "/indexer/tx/v1/txs/by_account/" + acc2 + "?is_signer=false&pagination.limit=1"},
	{"txs_by_account_acc1_msgs", "/indexer/tx/v1/txs/by_account/" + acc1 + "?msgs=cosmos.bank.v1beta1.MsgSend&is_signer=true&pagination.limit=1"},
	{"txs_by_account_val_is_signer", "/indexer/tx/v1/txs/by_account/" + val + "?is_signer=true"},
	{"txs_by_account_unknown", "/indexer/tx/v1/txs/by_account/0x1234"},
	{"txs_by_account_unknown_offset", "/indexer/tx/v1/txs/by_account/0x1234?pagination.offset=200&pagination.limit=100"},
	{"ERR_txs_by_account_bad_checksum", "/indexer/tx/v1/txs/by_account/init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73cq"},
	{"ERR_txs_by_account_invalid", "/indexer/tx/v1/txs/by_account/notanaddress"},
	{"ERR_txs_by_account_too_long_hex", "/indexer/tx/v1/txs/by_account/0x" + strings.Repeat("ab", 33)},
	{"txs_by_height_3", "/indexer/tx/v1/txs/by_height/3"},
	{"txs_by_height_23_limit1", "/indexer/tx/v1/txs/by_height/23?pagination.limit=1"},
	{"txs_by_height_23_limit1_page2", "/indexer/tx/v1/txs/by_height/23?pagination.limit=1&pagination.key=" + b64(`{"sequence":11}`)},
	{"txs_by_height_23_offset2", "/indexer/tx/v1/txs/by_height/23?pagination.limit=1&pagination.offset=2"},
	{"txs_by_height_23_msgs", "/indexer/tx/v1/txs/by_height/23?msgs=cosmos.bank.v1beta1.MsgSend"},
	{"txs_by_height_23_msgs_call", "/indexer/tx/v1/txs/by_height/23?msgs=minievm.evm.v1.MsgCall&pagination.limit=1&pagination.offset=1"},
	{"txs_by_height_empty_block", "/indexer/tx/v1/txs/by_height/2"},
	{"txs_by_height_future", "/indexer/tx/v1/txs/by_height/99999"},
	{"ERR_txs_by_height_0", "/indexer/tx/v1/txs/by_height/0"},
	{"ERR_txs_by_height_abc", "/indexer/tx/v1/txs/by_height/abc"},
	{"tx_by_hash", "/indexer/tx/v1/txs/" + txSend},
	{"tx_by_hash_lower_0x", "/indexer/tx/v1/txs/0x" + strings.ToLower(txSend)},
	{"ERR_tx_by_hash_short", "/indexer/tx/v1/txs/ABCD"},
	{"ERR_tx_by_hash_not_hex", "/indexer/tx/v1/txs/zzzz"},
	{"ERR_unknown_route", "/indexer/does/not/exist"},
	{"ERR_limit0", "/indexer/tx/v1/txs?pagination.limit=0"},
	{"ERR_limit1001", "/indexer/block/v1/blocks?pagination.limit=1001"},
	{"ERR_limit_overflow", "/indexer/tx/v1/txs?pagination.limit=99999999999999999999999"},
	{"limit_abc_default", "/indexer/block/v1/blocks?pagination.limit=abc&pagination.count_total=false"},
	{"ERR_offset_neg", "/indexer/block/v1/blocks?pagination.offset=-1"},
	{"offset_abc_default", "/indexer/tx/v1/txs?pagination.offset=abc&pagination.limit=1"},
	{"ERR_key_not_base64", "/indexer/tx/v1/txs?pagination.key=@@@"},
	{"ERR_key_bad_escape", "/indexer/tx/v1/txs?pagination.key=%%%"},
	{"ERR_key_text", "/indexer/block/v1/blocks?pagination.key=aGVsbG8%3D"},
	{"ERR_key_bad_json", "/indexer/block/v1/blocks?pagination.key=e2JhZCBqc29u"},
	{"ERR_key_negative_cursor", "/indexer/tx/v1/txs?pagination.key=" + b64(`{"sequence":-1}`)},
	{"ERR_key_unknown_field", "/indexer/tx/v1/txs?pagination.key=" + b64(`{"page":3}`)},
	{"reverse_garbage_default", "/indexer/block/v1/blocks?pagination.reverse=maybe&pagination.limit=1"},
	{"is_signer_not_literal_true", "/indexer/tx/v1/txs/by_account/" + acc1 + "?is_signer=True&pagination.limit=1"},
}

func render(rec *httptest.ResponseRecorder) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP %d\nContent-Type: %s\nCache-Control: %s\n\n", rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
	b.Write(rec.Body.Bytes())
	return b.Bytes()
}

// TestGolden answers every case without the response cache and with it, twice (the second
// answer comes from the cache where it may): all three must be the golden file, byte for byte.
func TestGolden(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			noCache := testCfg
			noCache.CacheBytes = -1
			plain, cached := newEVM(noCache, db, nil, prometheus.NewRegistry()), newEVM(testCfg, db, nil, prometheus.NewRegistry())
			for _, c := range goldenCases {
				t.Run(c.name, func(t *testing.T) {
					for i, h := range []http.Handler{plain, cached, cached} {
						rec := do(h, c.path)
						if !json.Valid(rec.Body.Bytes()) {
							t.Fatalf("%s: body is not JSON: %q", c.path, rec.Body.String())
						}
						wantErr := strings.HasPrefix(c.name, "ERR_")
						if wantErr != (rec.Code >= 400) || rec.Code >= 500 {
							t.Errorf("%s (answer %d): status %d", c.path, i, rec.Code)
						}
						testutil.Golden(t, filepath.Join("golden", c.name+".txt"), render(rec))
					}
				})
			}
		})
	}
}

// TestPagingWalk follows next_key through every list in both directions and checks each row
// comes exactly once, in order, ending on an empty page.
func TestPagingWalk(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			h := newEVM(testCfg, open(t), nil, nil)
			lists := []struct {
				path, key, field string
				want             int
			}{
				{"/indexer/block/v1/blocks?pagination.limit=7", "blocks", "height", 72},
				{"/indexer/tx/v1/txs?pagination.limit=4", "txs", "txhash", 34},
				{"/indexer/tx/v1/txs?msgs=cosmos.bank.v1beta1.MsgSend&pagination.limit=3", "txs", "txhash", -1},
				{"/indexer/tx/v1/txs/by_account/" + acc1 + "?pagination.limit=5", "txs", "txhash", -1},
				{"/indexer/tx/v1/txs/by_height/23?pagination.limit=1", "txs", "txhash", 3},
			}
			for _, l := range lists {
				for _, rev := range []string{"true", "false"} {
					var seen []string
					key := ""
					total := ""
					for pages := 0; ; pages++ {
						if pages > 100 {
							t.Fatalf("%s: no end", l.path)
						}
						p := l.path + "&pagination.reverse=" + rev
						if key != "" {
							p += "&pagination.key=" + url.QueryEscape(key)
						}
						rec := do(h, p)
						if rec.Code != 200 {
							t.Fatalf("%s: %d %s", p, rec.Code, rec.Body)
						}
						var body map[string]json.RawMessage
						_ = json.Unmarshal(rec.Body.Bytes(), &body)
						var rows []map[string]any
						_ = json.Unmarshal(body[l.key], &rows)
						var pg paginationJSON
						_ = json.Unmarshal(body["pagination"], &pg)
						total = pg.Total
						for _, r := range rows {
							seen = append(seen, fmt.Sprint(r[l.field]))
						}
						if len(rows) == 0 {
							if pg.NextKey != nil {
								t.Fatalf("%s: empty page with next_key", p)
							}
							break
						}
						if pg.NextKey == nil {
							t.Fatalf("%s: non-empty page without next_key", p)
						}
						key = *pg.NextKey
					}
					uniq := slices.Clone(seen)
					slices.Sort(uniq)
					if len(slices.Compact(uniq)) != len(seen) {
						t.Errorf("%s reverse=%s: repeated rows", l.path, rev)
					}
					if strconv.Itoa(len(seen)) != total || (l.want >= 0 && len(seen) != l.want) {
						t.Errorf("%s reverse=%s: walked %d rows, total %s, want %d", l.path, rev, len(seen), total, l.want)
					}
				}
			}
		})
	}
}

func TestSwaggerCoversRoutes(t *testing.T) {
	s := newEVM(testCfg, evmStub{}, nil, nil) // an EVM chain: every route, the whole document
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Paths   map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapiDoc, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	var spec, served []string
	for p := range doc.Paths {
		spec = append(spec, p)
	}
	for _, rt := range (&server{cfg: Config{Features: evmFeatures(evmStub{})}, store: evmStub{}}).routes() {
		if rt.InSpec {
			served = append(served, rt.Path())
		}
	}
	slices.Sort(spec)
	slices.Sort(served)
	if !slices.Equal(spec, served) {
		t.Errorf("openapi.json paths and served routes differ:\nspec:   %v\nserved: %v", spec, served)
	}
	rec := do(s, "/swagger/doc.json")
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), openapiDoc) {
		t.Errorf("/swagger/doc.json: %d", rec.Code)
	}
	// Swagger UI: the page, and its initializer pointing at our document.
	if rec := do(s, "/swagger/"); rec.Code != 200 || !strings.Contains(rec.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(rec.Body.String(), "swagger-ui") {
		t.Errorf("/swagger/: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	if rec := do(s, "/swagger"); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/swagger/" {
		t.Errorf("/swagger: %d → %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := do(s, "/swagger/swagger-initializer.js"); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"/swagger/doc.json"`) {
		t.Errorf("initializer: %d %.200s", rec.Code, rec.Body)
	}
}

func TestMetricsAndHealth(t *testing.T) {
	db := backends(t)["sqlite"](t)
	reg := prometheus.NewRegistry()
	h := newEVM(testCfg, db, nil, reg)
	do(h, "/indexer/tx/v1/txs/"+txSend)
	do(h, "/indexer/tx/v1/txs/zz")
	do(h, "/nope")
	if rec := do(h, "/healthz"); rec.Code != 200 || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("healthz: %d %s", rec.Code, rec.Body)
	}
	rec := do(h, "/metrics")
	body := rec.Body.String()
	for _, want := range []string{
		`rollgate_indexer_api_requests_total{code="200",route="GET /indexer/tx/v1/txs/{tx_hash}"} 1`,
		`rollgate_indexer_api_requests_total{code="400",route="GET /indexer/tx/v1/txs/{tx_hash}"} 1`,
		`rollgate_indexer_api_requests_total{code="404",route="unmatched"} 1`,
		`rollgate_indexer_api_request_duration_seconds_count{route="GET /indexer/tx/v1/txs/{tx_hash}"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// A second API on the same registry shares the collectors instead of failing.
	newEVM(testCfg, db, nil, reg)
}

// failingReader makes every read fail, as a lost database would.
type failingReader struct{ store.Reader }

func (failingReader) IndexedHeightNow() (int64, bool) { return 0, false }

func (failingReader) IndexedHeight(context.Context) (int64, error) {
	return 0, fmt.Errorf("dial tcp: connection refused; SELECT secret FROM x")
}

func (failingReader) Tx(context.Context, []byte) (store.TxRecord, error) {
	return store.TxRecord{}, context.DeadlineExceeded
}

func (failingReader) Block(context.Context, int64) (store.Block, error) { panic("boom") }

func TestStoreFailures(t *testing.T) {
	h := New(testCfg, failingReader{}, nil, nil)
	cases := []struct {
		path   string
		status int
	}{
		{"/status", 500},
		{"/healthz", 503},
		{"/indexer/tx/v1/txs/" + txSend, 504},
		{"/indexer/block/v1/blocks/3", 500},
	}
	for _, c := range cases {
		rec := do(h, c.path)
		var e struct {
			Code    int      `json:"code"`
			Message string   `json:"message"`
			Details []string `json:"details"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || rec.Code != c.status || e.Details == nil {
			t.Errorf("%s: %d %s", c.path, rec.Code, rec.Body)
		}
		if strings.Contains(rec.Body.String(), "SELECT") || strings.Contains(rec.Body.String(), "boom") {
			t.Errorf("%s leaks internals: %s", c.path, rec.Body)
		}
	}
}

// evmEvent is the chain's event type of EVM logs (an event type, not a VM kind).
const evmEvent = "evm"
