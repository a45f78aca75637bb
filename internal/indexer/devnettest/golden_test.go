package devnettest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/testutil"
)

// params are the request parameters of the golden cases, picked from the indexed chain by
// fixed rules so that they, and with them the goldens, only depend on the devnet seed.
type params struct {
	tip         int64
	firstHash   string // the first tx of the chain
	firstHeight int64
	failedHash  string // the first tx with a non-zero code; "" if none
	multiHash   string // the first tx with several messages; "" if none
	busy        int64  // the lowest height among those with the most txs
	busyCount   int
	empty       int64 // the lowest height without txs; 0 if none
	msgA, msgB  string
	msgRare     string // the least frequent message type (ties: by name)
	acc1        string // the fee payer of the first tx
	acc1Hex     string
	acc2        string // the first fee payer other than acc1
	other       string // the first address in an event value that never pays a fee (contract, object)
}

// addrLike matches the address forms event values carry: 0x hex of 20 or 32 bytes, bech32 of
// 20 or 32 bytes.
var addrLike = regexp.MustCompile(`^(?:0x(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})|init1(?:[02-9ac-hj-np-z]{38}|[02-9ac-hj-np-z]{58}))$`)

type apiTx struct {
	TxHash string `json:"txhash"`
	Height string `json:"height"`
	Code   int    `json:"code"`
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

func (tx apiTx) feePayer() string {
	for _, e := range tx.Events {
		for _, a := range e.Attributes {
			if e.Type == "tx" && a.Key == "fee_payer" {
				return a.Value
			}
		}
	}
	return ""
}

// getJSON requests path and decodes its 200 answer into v.
func getJSON(t testing.TB, h http.Handler, path string, v any) {
	t.Helper()
	rec := get(h, path)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// pickParams reads the whole indexed chain through the API and applies the rules of params.
func pickParams(t testing.TB, h http.Handler) params {
	t.Helper()
	var blocks struct {
		Blocks []struct {
			Height  string `json:"height"`
			TxCount string `json:"tx_count"`
		} `json:"blocks"`
	}
	getJSON(t, h, "/indexer/block/v1/blocks?pagination.limit=1000&pagination.reverse=false", &blocks)
	var txs struct {
		Txs []apiTx `json:"txs"`
	}
	getJSON(t, h, "/indexer/tx/v1/txs?pagination.limit=1000&pagination.reverse=false", &txs)
	if len(blocks.Blocks) == 0 || len(txs.Txs) == 0 {
		t.Fatal("nothing indexed")
	}
	var p params
	for _, b := range blocks.Blocks {
		hgt, _ := strconv.ParseInt(b.Height, 10, 64)
		n, _ := strconv.Atoi(b.TxCount)
		p.tip = hgt
		if n == 0 && p.empty == 0 {
			p.empty = hgt
		}
		if n > p.busyCount {
			p.busy, p.busyCount = hgt, n
		}
	}
	first := txs.Txs[0]
	p.firstHash = first.TxHash
	p.firstHeight, _ = strconv.ParseInt(first.Height, 10, 64)
	p.acc1 = first.feePayer()
	counts := map[string]int{}
	for _, tx := range txs.Txs {
		if tx.Code != 0 && p.failedHash == "" {
			p.failedHash = tx.TxHash
		}
		if len(tx.Tx.Body.Messages) > 1 && p.multiHash == "" {
			p.multiHash = tx.TxHash
		}
		if fp := tx.feePayer(); p.acc2 == "" && fp != "" && fp != p.acc1 {
			p.acc2 = fp
		}
		for _, m := range tx.Tx.Body.Messages {
			counts[strings.TrimPrefix(m.Type, "/")]++
		}
	}
	payers := map[string]bool{}
	for _, tx := range txs.Txs {
		if raw, err := address.Parse("init", tx.feePayer()); err == nil {
			payers[string(raw)] = true
		}
	}
	for _, tx := range txs.Txs {
		for _, e := range tx.Events {
			for _, a := range e.Attributes {
				if p.other != "" || !addrLike.MatchString(a.Value) {
					continue
				}
				if raw, err := address.Parse("init", a.Value); err == nil && !payers[string(raw)] {
					p.other = a.Value
				}
			}
		}
	}
	types := make([]string, 0, len(counts))
	for m := range counts {
		types = append(types, m)
	}
	sort.Slice(types, func(i, j int) bool {
		if counts[types[i]] != counts[types[j]] {
			return counts[types[i]] > counts[types[j]]
		}
		return types[i] < types[j]
	})
	if len(types) < 2 || p.acc1 == "" || p.acc2 == "" || p.other == "" {
		t.Fatalf("the chain lacks variety: message types %v, accounts %q %q %q", types, p.acc1, p.acc2, p.other)
	}
	p.msgA, p.msgB, p.msgRare = types[0], types[1], types[len(types)-1]
	raw, err := address.Parse("init", p.acc1)
	if err != nil {
		t.Fatal(err)
	}
	p.acc1Hex = hex.EncodeToString(raw)
	return p
}

// b64 is a pagination key as a client sends it: base64, then query-escaped.
func b64(s string) string { return url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(s))) }

// gcase is one golden request. When next names an earlier case, the request continues that
// case's list with its next_key, as a client pages.
type gcase struct{ name, path, next string }

// walk as a case's next: the golden is the whole walk of the list, every page from the first
// following next_key to the last, then back following previous_key to the first again.
const walk = "<walk>"

// walkPages answers a walk case: each page's request and answer, forward then back.
func walkPages(t testing.TB, h http.Handler, path string) []byte {
	t.Helper()
	var out bytes.Buffer
	page := func(key string) []byte {
		p := path
		if key != "" {
			p += "&pagination.key=" + url.QueryEscape(key)
		}
		rec := get(h, p)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", p, rec.Code, rec.Body)
		}
		fmt.Fprintf(&out, "### GET %s\n", p)
		out.Write(render(rec))
		out.WriteString("\n\n")
		return rec.Body.Bytes()
	}
	body, pages := page(""), 1
	for key := nextKey(t, body); key != ""; key = nextKey(t, body) {
		if pages++; pages > 100 {
			t.Fatalf("%s: more than 100 pages forward", path)
		}
		body = page(key)
	}
	back := 0
	for key := pageKey(t, body, "previous_key"); key != ""; key = pageKey(t, body, "previous_key") {
		if back++; back > 100 {
			t.Fatalf("%s: more than 100 pages back", path)
		}
		body = page(key)
	}
	if pages > 1 && back != pages-1 {
		t.Errorf("%s: %d pages forward, %d back to the first", path, pages, back)
	}
	return out.Bytes()
}

// pageKey is a list answer's pagination key named field ("" when null).
func pageKey(t testing.TB, body []byte, field string) string {
	t.Helper()
	var r struct {
		Pagination map[string]*string `json:"pagination"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	if k := r.Pagination[field]; k != nil {
		return *k
	}
	return ""
}

// goldenCases are the requests of the API's own goldens over the captured chain, with
// parameters from p instead of the capture's.
func goldenCases(p params) []gcase {
	const (
		blocks = "/indexer/block/v1/blocks"
		txs    = "/indexer/tx/v1/txs"
	)
	byAcc := func(a string) string { return txs + "/by_account/" + a }
	byHeight := func(h int64) string { return fmt.Sprintf("%s/by_height/%d", txs, h) }
	acc1, acc2 := byAcc(p.acc1), byAcc(p.acc2)
	busy := byHeight(p.busy)
	last := p.acc1[len(p.acc1)-1]
	badSum := p.acc1[:len(p.acc1)-1] + map[bool]string{true: "p", false: "q"}[last == 'q']
	cs := []gcase{
		{"status", "/status", ""},
		{"blocks_limit2", blocks + "?pagination.limit=2", ""},
		{"blocks_limit2_page2", blocks + "?pagination.limit=2", "blocks_limit2"},
		{"blocks_limit2_reverse_false", blocks + "?pagination.limit=2&pagination.reverse=false", ""},
		{"blocks_limit2_reverse_false_page2", blocks + "?pagination.limit=2&pagination.reverse=false", "blocks_limit2_reverse_false"},
		{"blocks_offset", fmt.Sprintf("%s?pagination.limit=5&pagination.offset=%d", blocks, p.tip-3), ""},
		{"blocks_offset_key", blocks + "?pagination.limit=2&pagination.key=" + b64("3"), ""},
		{"blocks_sequence_key", blocks + "?pagination.limit=2&pagination.key=" + b64(`{"sequence":5}`), ""},
		{"blocks_count_total_false", blocks + "?pagination.limit=1&pagination.count_total=false", ""},
		{"blocks_past_end", blocks + "?pagination.limit=2&pagination.key=" + b64(`{"height":1}`), ""},
		{"block_busy", fmt.Sprintf("%s/%d", blocks, p.busy), ""},
		{"block_first_tx", fmt.Sprintf("%s/%d", blocks, p.firstHeight), ""},
		{"block_tip", fmt.Sprintf("%s/%d", blocks, p.tip), ""},
		{"block_trailing_slash", fmt.Sprintf("%s/%d/", blocks, p.busy), ""},
		{"ERR_block_not_found", fmt.Sprintf("%s/%d", blocks, p.tip+1), ""},
		{"ERR_block_neg1", blocks + "/-1", ""},
		{"ERR_block_0", blocks + "/0", ""},
		{"ERR_block_abc", blocks + "/abc", ""},
		{"ERR_block_huge", blocks + "/99999999999999999999", ""},
		{"avg_blocktime", "/indexer/block/v1/avg_blocktime", ""},
		{"txs_count", txs + "/count", ""},
		{"txs_limit2", txs + "?pagination.limit=2", ""},
		{"txs_limit2_page2", txs + "?pagination.limit=2", "txs_limit2"},
		{"txs_limit2_reverse_false", txs + "?pagination.limit=2&pagination.reverse=false", ""},
		{"txs_limit2_reverse_false_page2", txs + "?pagination.limit=2&pagination.reverse=false", "txs_limit2_reverse_false"},
		{"txs_offset5", txs + "?pagination.limit=5&pagination.offset=5", ""},
		{"txs_offset_key", txs + "?pagination.limit=1&pagination.key=" + b64("10"), ""},
		{"txs_height_key", fmt.Sprintf("%s?pagination.limit=2&pagination.key=%s", txs, b64(fmt.Sprintf(`{"height":%d}`, p.busy))), ""},
		{"txs_count_total_false", txs + "?pagination.limit=1&pagination.count_total=false", ""},
		{"txs_past_end", txs + "?pagination.key=" + b64(`{"sequence":1}`), ""},
		{"txs_msgs_single", txs + "?msgs=" + p.msgA + "&pagination.limit=2", ""},
		{"txs_msgs_single_page2", txs + "?msgs=" + p.msgA + "&pagination.limit=2", "txs_msgs_single"},
		{"txs_msgs_single_reverse_false", txs + "?msgs=" + p.msgB + "&pagination.limit=2&pagination.reverse=false", ""},
		{"txs_msgs_single_offset", txs + "?msgs=" + p.msgA + "&pagination.limit=2&pagination.offset=3", ""},
		{"txs_msgs_rare", txs + "?msgs=" + p.msgRare, ""},
		{"txs_msgs_repeated", txs + "?msgs=" + p.msgA + "&msgs=" + p.msgB + "&pagination.limit=3", ""},
		{"txs_msgs_repeated_page2", txs + "?msgs=" + p.msgA + "&msgs=" + p.msgB + "&pagination.limit=3", "txs_msgs_repeated"},
		{"txs_msgs_comma", txs + "?msgs=" + p.msgA + "," + p.msgB + "&pagination.limit=3", ""},
		{"txs_msgs_leading_slash", txs + "?msgs=/" + p.msgRare, ""}, // as in a tx's @type: the same txs as txs_msgs_rare
		{"txs_msgs_unknown", txs + "?msgs=no.such.Msg", ""},
		{"txs_msgs_unknown_and_known", txs + "?msgs=no.such.Msg," + p.msgB + "&pagination.limit=1", ""},
		{"txs_msgs_empty_value", txs + "?msgs=&pagination.limit=1&pagination.count_total=false", ""},
		{"txs_by_account_acc1", acc1 + "?pagination.limit=2", ""},
		{"txs_by_account_acc1_page2", acc1 + "?pagination.limit=2", "txs_by_account_acc1"},
		{"txs_by_account_acc1_offset1", acc1 + "?pagination.limit=2&pagination.offset=1", ""},
		{"txs_by_account_acc1_reverse_false", acc1 + "?pagination.limit=2&pagination.reverse=false", ""},
		{"txs_by_account_acc1_reverse_false_page2", acc1 + "?pagination.limit=2&pagination.reverse=false", "txs_by_account_acc1_reverse_false"},
		{"txs_by_account_acc1_count_total_false", acc1 + "?pagination.limit=1&pagination.count_total=false", ""},
		{"txs_by_account_acc1_hex_upper", byAcc("0x"+strings.ToUpper(p.acc1Hex)) + "?pagination.limit=1", ""},
		{"txs_by_account_acc1_hex_no0x", byAcc(p.acc1Hex) + "?pagination.limit=1", ""},
		{"txs_by_account_acc1_bech32_upper", byAcc(strings.ToUpper(p.acc1)) + "?pagination.limit=1", ""},
		{"txs_by_account_acc1_is_signer", acc1 + "?is_signer=true&pagination.limit=2", ""},
		{"txs_by_account_acc1_is_signer_page2", acc1 + "?is_signer=true&pagination.limit=2", "txs_by_account_acc1_is_signer"},
		{"txs_by_account_acc2_is_signer", acc2 + "?is_signer=true&pagination.limit=2", ""},
		{"txs_by_account_acc2_not_signer", acc2 + "?is_signer=false&pagination.limit=2", ""},
		{"txs_by_account_acc1_msgs", acc1 + "?msgs=" + p.msgA + "&is_signer=true&pagination.limit=1", ""},
		{"txs_by_account_acc2_msgs_comma", acc2 + "?msgs=" + p.msgA + "," + p.msgB + "&pagination.limit=2", ""},
		{"txs_by_account_acc2_msgs_unknown", acc2 + "?msgs=no.such.Msg", ""},
		{"txs_by_account_other", byAcc(p.other) + "?pagination.limit=3", ""},
		{"txs_by_account_other_is_signer", byAcc(p.other) + "?is_signer=true", ""},
		{"txs_by_account_unknown", byAcc("0x1234"), ""},
		{"txs_by_account_unknown_offset", byAcc("0x1234") + "?pagination.offset=200&pagination.limit=100", ""},
		{"ERR_txs_by_account_bad_checksum", byAcc(badSum), ""},
		{"ERR_txs_by_account_invalid", byAcc("notanaddress"), ""},
		{"ERR_txs_by_account_too_long_hex", byAcc("0x" + strings.Repeat("ab", 33)), ""},
		{"txs_by_height_first_tx", byHeight(p.firstHeight), ""},
		{"txs_by_height_busy", busy, ""},
		{"txs_by_height_busy_limit1", busy + "?pagination.limit=1", ""},
		{"txs_by_height_busy_limit1_page2", busy + "?pagination.limit=1", "txs_by_height_busy_limit1"},
		{"txs_by_height_busy_reverse_false", busy + "?pagination.limit=1&pagination.reverse=false", ""},
		{"txs_by_height_busy_offset", fmt.Sprintf("%s?pagination.limit=1&pagination.offset=%d", busy, p.busyCount-1), ""},
		{"txs_by_height_busy_msgs", busy + "?msgs=" + p.msgA, ""},
		{"txs_by_height_busy_msgs_comma", busy + "?msgs=" + p.msgA + "," + p.msgB, ""},
		{"txs_by_height_future", byHeight(p.tip + 1000), ""},
		{"ERR_txs_by_height_0", txs + "/by_height/0", ""},
		{"ERR_txs_by_height_abc", txs + "/by_height/abc", ""},
		{"tx_by_hash", txs + "/" + p.firstHash, ""},
		{"tx_by_hash_lower_0x", txs + "/0x" + strings.ToLower(p.firstHash), ""},
		{"ERR_tx_by_hash_not_found", txs + "/" + strings.Repeat("0", 64), ""},
		{"ERR_tx_by_hash_short", txs + "/ABCD", ""},
		{"ERR_tx_by_hash_not_hex", txs + "/zzzz", ""},
		{"ERR_unknown_route", "/indexer/does/not/exist", ""},
		{"ERR_limit0", txs + "?pagination.limit=0", ""},
		{"ERR_limit1001", blocks + "?pagination.limit=1001", ""},
		{"limit_abc_default", blocks + "?pagination.limit=abc&pagination.count_total=false", ""},
		{"ERR_offset_neg", blocks + "?pagination.offset=-1", ""},
		{"offset_abc_default", txs + "?pagination.offset=abc&pagination.limit=1", ""},
		{"ERR_key_not_base64", txs + "?pagination.key=@@@", ""},
		{"ERR_key_bad_escape", txs + "?pagination.key=%%%", ""},
		{"ERR_key_text", blocks + "?pagination.key=aGVsbG8%3D", ""},
		{"ERR_key_bad_json", blocks + "?pagination.key=e2JhZCBqc29u", ""},
		{"ERR_key_negative_cursor", txs + "?pagination.key=" + b64(`{"sequence":-1}`), ""},
		{"ERR_key_unknown_field", txs + "?pagination.key=" + b64(`{"page":3}`), ""},
		{"reverse_garbage_default", blocks + "?pagination.reverse=maybe&pagination.limit=1", ""},
		{"count_total_garbage_default", txs + "?pagination.count_total=maybe&pagination.limit=1", ""},
		{"blocks_limit1000", blocks + "?pagination.limit=1000&pagination.reverse=false", ""},
		{"ERR_limit_negative", txs + "?pagination.limit=-1", ""},
		{"ERR_msgs_too_many", txs + "?msgs=" + strings.TrimSuffix(strings.Repeat(p.msgA+",", 101), ","), ""},
		{"ERR_tx_by_hash_too_long", txs + "/" + strings.Repeat("ab", 65), ""},
		{"ERR_txs_by_account_bad_hex", byAcc("0x" + strings.Repeat("zz", 20)), ""},
		{"ERR_txs_by_height_neg1", txs + "/by_height/-1", ""},
		{"ERR_txs_by_height_huge", txs + "/by_height/99999999999999999999", ""},
		{"is_signer_not_literal_true", acc1 + "?is_signer=True&pagination.limit=1", ""},
	}
	if p.empty != 0 {
		cs = append(cs,
			gcase{"block_empty", fmt.Sprintf("%s/%d", blocks, p.empty), ""},
			gcase{"txs_by_height_empty_block", byHeight(p.empty), ""})
	}
	if p.failedHash != "" {
		cs = append(cs, gcase{"tx_by_hash_failed", txs + "/" + p.failedHash, ""})
	}
	if p.multiHash != "" {
		cs = append(cs, gcase{"tx_by_hash_multi_msg", txs + "/" + p.multiHash, ""})
	}
	return cs
}

// render is what a golden file holds: status, the headers a client acts on, and the body.
func render(rec *httptest.ResponseRecorder) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP %d\nContent-Type: %s\nCache-Control: %s\n\n", rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
	b.Write(rec.Body.Bytes())
	return b.Bytes()
}

// nextKey is the pagination.next_key of a list answer ("" when null).
func nextKey(t testing.TB, body []byte) string {
	t.Helper()
	return pageKey(t, body, "next_key")
}

// sharedDir holds the goldens every VM answers alike (most error answers), kept once instead of
// once per VM folder. A case is VM-independent when its golden is there; a case whose answer
// depends on the VM keeps a golden per VM folder.
const sharedDir = "any"

// sharedAnswer is the first answer seen for a VM-independent case and the VM that gave it.
type sharedAnswer struct {
	kind string
	got  []byte
}

// sharedGoldens compares the VMs' answers to each VM-independent case with each other, so that
// an -update run, where every VM writes the one shared file, cannot let one VM's answer
// overwrite a different answer of another.
type sharedGoldens struct {
	mu   sync.Mutex
	seen map[string]sharedAnswer
}

// check reports whether the case's golden is the shared one; for a shared case it also
// compares this VM's answer with the other VMs'.
func (s *sharedGoldens) check(t *testing.T, kind, name string, got []byte) bool {
	t.Helper()
	_, errShared := os.Stat(filepath.Join("testdata", sharedDir, name+".txt"))
	_, errOwn := os.Stat(filepath.Join("testdata", kind, name+".txt"))
	if errShared != nil {
		return false
	}
	if errOwn == nil {
		t.Errorf("%s has a golden both in testdata/%s and testdata/%s: keep one", name, sharedDir, kind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.seen[name]; !ok {
		s.seen[name] = sharedAnswer{kind, got}
	} else if prev.kind != kind && !bytes.Equal(prev.got, got) {
		t.Errorf("%s is kept once for every VM, but %s answers differently from %s (move it to the VM folders):\n%s\n---\n%s", name, kind, prev.kind, got, prev.got)
	}
	return true
}

// TestGolden ingests each rollup of the seeded devnet over HTTP into each backend and compares
// every golden request's answer with testdata/<kind>/<case>.txt, or testdata/any/<case>.txt
// when every VM answers the case alike. The answers of the two
// backends are also compared with each other directly, so an -update run cannot hide a
// difference between them by writing one golden over the other.
func TestGolden(t *testing.T) {
	n := startNet(t, netConfig())
	if err := n.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	shared := &sharedGoldens{seen: map[string]sharedAnswer{}}
	for _, r := range rollups {
		t.Run(r.kind, func(t *testing.T) {
			dc, _ := n.Chain(r.chainID)
			var mu sync.Mutex
			seen := map[string][]byte{} // case → first backend's rendering
			seenBy := ""
			dumps := map[string][]byte{}
			for _, be := range backends {
				t.Run(be.name, func(t *testing.T) {
					dsn := be.dsn(t)
					db := openStore(t, dsn)
					ctx, cancel := context.WithTimeout(context.Background(), timeout)
					defer cancel()
					if err := ingestChain(ctx, n.Endpoints()[r.chainID], r, db, tip); err != nil {
						t.Fatalf("ingest: %v", err)
					}
					checkAgainstChain(t, db, dc, tip)
					checkRichList(t, db, dc, n.Endpoints()[r.chainID], tip)
					dumps[be.name] = dump(t, db)
					h := newAPI(r, db)
					// The goldens are answered with the response cache (the default) and each is
					// also asked twice more, so the second comes from the cache, and of an API
					// without one: all three must be the same bytes.
					uncachedCfg := apiConfig(r, db)
					uncachedCfg.CacheBytes = -1
					uncached := api.New(uncachedCfg, db, nil, prometheus.NewRegistry())
					checkNFTs(t, r.kind, h, dc, tip)
					p := pickParams(t, h)
					bodies := map[string][]byte{}
					for _, c := range append(append(append(goldenCases(p), evmCases(t, r.kind, h)...), nftCases(t, h, dsn)...), transferCases(t, r.kind, h, dc)...) {
						t.Run(c.name, func(t *testing.T) {
							var got []byte
							if c.next == walk {
								got = walkPages(t, h, c.path)
								if again := walkPages(t, uncached, c.path); !bytes.Equal(again, got) {
									t.Errorf("uncached walk differs:\n%s\n---\n%s", again, got)
								}
							} else {
								path := c.path
								if c.next != "" {
									key := nextKey(t, bodies[c.next])
									if key == "" {
										t.Fatalf("%s has no next page", c.next)
									}
									path += "&pagination.key=" + url.QueryEscape(key)
								}
								rec := get(h, path)
								bodies[c.name] = rec.Body.Bytes()
								if !json.Valid(rec.Body.Bytes()) {
									t.Fatalf("%s: body is not JSON: %q", path, rec.Body)
								}
								if wantErr := strings.HasPrefix(c.name, "ERR_"); wantErr != (rec.Code >= 400) || rec.Code >= 500 {
									t.Errorf("%s: status %d", path, rec.Code)
								}
								got = render(rec)
								for name, other := range map[string]http.Handler{"cached again": h, "uncached": uncached} {
									if again := render(get(other, path)); !bytes.Equal(again, got) {
										t.Errorf("%s answer differs:\n%s\n---\n%s", name, again, got)
									}
								}
							}
							mu.Lock()
							if prev, ok := seen[c.name]; ok && !bytes.Equal(prev, got) {
								t.Errorf("%s answers differently from %s:\n%s\n---\n%s", be.name, seenBy, got, prev)
							} else if !ok {
								seen[c.name] = got
							}
							mu.Unlock()
							if shared.check(t, r.kind, c.name, got) {
								testutil.Golden(t, filepath.Join(sharedDir, c.name+".txt"), got)
							} else {
								testutil.Golden(t, filepath.Join(r.kind, c.name+".txt"), got)
							}
						})
					}
					if seenBy == "" {
						seenBy = be.name
					}
				})
			}
			// Both stores hold the same rows, not only answer the same bytes.
			if a, b := dumps["sqlite"], dumps["postgres"]; a != nil && b != nil && !bytes.Equal(a, b) {
				t.Errorf("SQLite and PostgreSQL dumps differ:\n%s", firstDiff(b, a))
			}
		})
	}
}
