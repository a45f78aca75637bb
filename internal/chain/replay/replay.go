// Package replay serves a captured chain (testdata/fixtures/<dir>: index.jsonl plus one file per
// response) as an http.Handler, so the chain clients, the indexer and end-to-end tests run
// against real bytes without a node. One server answers CometBFT RPC (URI GETs and JSON-RPC
// POSTs), Cosmos REST and Ethereum JSON-RPC together: captures from different ports are told
// apart by path, and JSON-RPC POSTs to "/" by method name.
package replay

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Record is one line of index.jsonl.
type Record struct {
	File           string            `json:"file"`
	Method         string            `json:"method"`
	URL            string            `json:"url"`
	RequestBody    json.RawMessage   `json:"request_body"`
	RequestHeaders map[string]string `json:"request_headers"`
	Status         int               `json:"status"`
	ContentType    string            `json:"content_type"`
}

// Miss is a request the capture has no answer for.
type Miss struct {
	Method string
	Path   string
	Query  string
	Height string // x-cosmos-block-height
	Body   string
}

func (m Miss) String() string {
	s := m.Method + " " + m.Path
	if m.Query != "" {
		s += "?" + m.Query
	}
	if m.Height != "" {
		s += " [height " + m.Height + "]"
	}
	if m.Body != "" {
		s += " " + m.Body
	}
	return s
}

// Option configures a Server.
type Option func(*Server)

// MaxHeight makes the chain look f() blocks high (f is called on every request, so a test can
// grow the chain): block-level requests above it (CometBFT /block, /block_results, REST txs by
// block, eth_getBlockByNumber, eth_getBlockReceipts, debug_traceBlockByNumber, REST queries at a
// height, where the capture has such an error) answer exactly like the captured future-height
// errors with the numbers substituted; /status, REST blocks/latest and eth_blockNumber report f().
// Without it the chain ends at the highest captured /block.
func MaxHeight(f func() int64) Option { return func(s *Server) { s.maxHeight = f } }

// WithLogger logs misses at debug level.
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// CacheSize sets how many response bodies are kept in memory (default 256).
func CacheSize(n int) Option { return func(s *Server) { s.cacheSize = n } }

type entry struct {
	Record
	kind   string // height-bearing endpoint family, "" when none
	height int64
}

// rpcRef points at a captured Ethereum JSON-RPC answer: a whole file, or one element of a
// captured batch (matched by the id it was captured with).
type rpcRef struct {
	entry int
	batch bool
	id    string
}

// Server replays one captured chain.
type Server struct {
	dir       string
	entries   []*entry
	exact     map[string]int
	norm      map[string]int
	rpc       map[string]rpcRef
	batches   map[string]int
	templates map[string]int
	heights   map[string][]heightRef // state queries by key without height (see HeightFallback)
	fallback  func(method, path string) bool
	capMax    int64
	maxHeight func() int64
	log       *slog.Logger
	cacheSize int
	cache     *lru.Cache[int, []byte]

	mu     sync.Mutex
	misses []Miss
}

// New indexes dir/index.jsonl; response files are read on demand.
func New(dir string, opts ...Option) (*Server, error) {
	s := &Server{dir: dir, exact: map[string]int{}, norm: map[string]int{}, rpc: map[string]rpcRef{},
		batches: map[string]int{}, templates: map[string]int{}, heights: map[string][]heightRef{}, cacheSize: 256}
	for _, o := range opts {
		o(s)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if s.cache, err = lru.New[int, []byte](max(s.cacheSize, 1)); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "index.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("replay: index.jsonl line %d: %w", line, err)
		}
		if err := s.add(rec); err != nil {
			return nil, fmt.Errorf("replay: index.jsonl line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: reading index: %w", err)
	}
	s.findTemplates()
	return s, nil
}

// CapturedMaxHeight is the highest block height the capture answers /block for.
func (s *Server) CapturedMaxHeight() int64 { return s.capMax }

// Records returns the index, in file order.
func (s *Server) Records() []Record {
	out := make([]Record, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.Record
	}
	return out
}

// Misses returns the requests answered 404 so far.
func (s *Server) Misses() []Miss {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Miss(nil), s.misses...)
}

// ResetMisses forgets recorded misses.
func (s *Server) ResetMisses() {
	s.mu.Lock()
	s.misses = nil
	s.mu.Unlock()
}

func (s *Server) add(rec Record) error {
	path, rawQuery := splitURL(rec.URL)
	idx := len(s.entries)
	e := &entry{Record: rec}
	s.entries = append(s.entries, e)
	height := normHeight(rec.RequestHeaders["x-cosmos-block-height"])
	body := bytes.TrimSpace(rec.RequestBody)
	if rec.Method == http.MethodPost && path == "/" && len(body) > 0 && (body[0] == '[' || body[0] == '{') {
		return s.addRPC(idx, body)
	}
	q, _ := url.ParseQuery(rawQuery)
	var cbody string
	if len(body) > 0 && string(body) != "null" {
		cbody = canonJSON(body)
	}
	putFirst(s.exact, key(rec.Method, path, q, height, cbody), idx)
	putFirst(s.norm, key(rec.Method, unescape(path), q, height, cbody), idx)
	if height != "" {
		s.addHeight(rec.Method, unescape(path), q, height, cbody, idx)
	}
	e.kind, e.height = heightOf(rec.Method, unescape(path), q, height)
	return nil
}

func (s *Server) addRPC(idx int, body []byte) error {
	if body[0] == '{' {
		var r rpcReq
		if err := json.Unmarshal(body, &r); err != nil {
			return err
		}
		putFirstRef(s.rpc, rpcKey(r.Method, r.Params), rpcRef{entry: idx, id: string(r.ID)})
		e := s.entries[idx]
		e.kind, e.height = rpcHeight(r.Method, r.Params)
		return nil
	}
	var reqs []rpcReq
	if err := json.Unmarshal(body, &reqs); err != nil {
		return err
	}
	s.batches[batchKey(reqs)] = idx
	for _, r := range reqs {
		putFirstRef(s.rpc, rpcKey(r.Method, r.Params), rpcRef{entry: idx, batch: true, id: string(r.ID)})
	}
	return nil
}

// splitURL returns the escaped path and raw query of a captured URL without validating escapes
// (a capture may hold a deliberately malformed path such as "/smart/%%%").
func splitURL(raw string) (path, query string) {
	rest := raw
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[j:]
		} else {
			rest = "/"
		}
	}
	path, query, _ = strings.Cut(rest, "?")
	if path == "" {
		path = "/"
	}
	return path, query
}

// normHeight treats height 0 (latest) like no height header.
func normHeight(h string) string {
	if strings.TrimSpace(h) == "0" {
		return ""
	}
	return strings.TrimSpace(h)
}

func putFirst(m map[string]int, k string, v int) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// putFirstRef keeps the first capture of a call, except that a single-call capture replaces an
// element of a batch: its bytes are what a single call should get back.
func putFirstRef(m map[string]rpcRef, k string, v rpcRef) {
	if old, ok := m[k]; !ok || (old.batch && !v.batch) {
		m[k] = v
	}
}

// findTemplates picks, per height-bearing endpoint, a captured answer for a height beyond the
// captured chain (the future-height errors) to imitate for heights above MaxHeight.
func (s *Server) findTemplates() {
	for _, e := range s.entries {
		if e.kind == "comet:/block" && e.Status == http.StatusOK && e.height > s.capMax {
			s.capMax = e.height
		}
	}
	if s.capMax == 0 { // no CometBFT capture: the REST block list gives the chain's extent
		for _, e := range s.entries {
			if e.kind == "rest:/cosmos/tx/v1beta1/txs/block/" && e.Status == http.StatusOK && e.height > s.capMax {
				s.capMax = e.height
			}
		}
	}
	for i, e := range s.entries {
		if e.kind != "" && e.height > s.capMax {
			putFirst(s.templates, e.kind, i)
		}
	}
}

// ServeHTTP answers from the capture.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "replay: reading request: "+err.Error(), http.StatusBadRequest)
		return
	}
	tb := bytes.TrimSpace(body)
	if r.Method == http.MethodPost && (r.URL.Path == "/" || r.URL.Path == "") && len(tb) > 0 && (tb[0] == '{' || tb[0] == '[') {
		s.serveRPC(w, r, tb)
		return
	}
	q, _ := url.ParseQuery(r.URL.RawQuery)
	height := normHeight(r.Header.Get("x-cosmos-block-height"))
	a, ok := s.lookup(r.Method, r.URL.EscapedPath(), q, height, tb)
	if !ok {
		s.miss(w, Miss{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Height: height, Body: string(tb)})
		return
	}
	a.write(w)
}

type answer struct {
	status int
	ctype  string
	body   []byte
}

func (a answer) write(w http.ResponseWriter) {
	if a.ctype != "" {
		w.Header().Set("Content-Type", a.ctype)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(a.status)
	w.Write(a.body)
}

func (s *Server) effectiveMax() int64 {
	if s.maxHeight != nil {
		return s.maxHeight()
	}
	return s.capMax
}

// lookup answers a GET or REST POST (path escaped as received).
func (s *Server) lookup(method, path string, q url.Values, height string, body []byte) (answer, bool) {
	if path == "" {
		path = "/"
	}
	upath := unescape(path)
	var cbody string
	if len(body) > 0 {
		cbody = canonJSON(body)
	}
	exactKey, normKey := key(method, path, q, height, cbody), key(method, upath, q, height, cbody)
	if kind, h := heightOf(method, upath, q, height); kind != "" && h > s.effectiveMax() {
		// Without MaxHeight a captured answer (e.g. the captured error itself) wins.
		_, captured := s.exact[exactKey]
		if !captured || s.maxHeight != nil {
			if a, ok := s.future(kind, h); ok {
				return a, true
			}
		}
	}
	if s.maxHeight != nil && method == http.MethodGet {
		switch upath {
		case "/status":
			if a, ok := s.status(); ok {
				return a, true
			}
		case "/cosmos/base/tendermint/v1beta1/blocks/latest":
			if a, ok := s.latestREST(); ok {
				return a, true
			}
		}
	}
	i, ok := s.exact[exactKey]
	if !ok {
		i, ok = s.norm[normKey]
	}
	if !ok {
		i, ok = s.nearest(method, upath, q, height, cbody)
	}
	if !ok {
		return answer{}, false
	}
	return s.answerOf(i)
}

func (s *Server) answerOf(i int) (answer, bool) {
	b, err := s.file(i)
	if err != nil {
		s.log.Error("replay: reading capture", "file", s.entries[i].File, "err", err)
		return answer{}, false
	}
	e := s.entries[i]
	return answer{status: e.Status, ctype: e.ContentType, body: b}, true
}

func (s *Server) file(i int) ([]byte, error) {
	if b, ok := s.cache.Get(i); ok {
		return b, nil
	}
	b, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(s.entries[i].File)))
	if err != nil {
		return nil, err
	}
	s.cache.Add(i, b)
	return b, nil
}

var currentRe = regexp.MustCompile(`current (?:blockchain )?height (\d+)`)

// future imitates the captured future-height answer for kind at height h.
func (s *Server) future(kind string, h int64) (answer, bool) {
	i, ok := s.templates[kind]
	if !ok {
		return answer{}, false
	}
	a, ok := s.answerOf(i)
	if !ok {
		return a, false
	}
	e := s.entries[i]
	body := a.body
	if m := currentRe.FindSubmatch(body); m != nil {
		body = replaceNumber(body, string(m[1]), strconv.FormatInt(s.effectiveMax(), 10))
	}
	body = replaceNumber(body, strconv.FormatInt(e.height, 10), strconv.FormatInt(h, 10))
	a.body = body
	return a, true
}

// replaceNumber replaces whole decimal numbers equal to old.
func replaceNumber(b []byte, old, repl string) []byte {
	re := regexp.MustCompile(`(^|[^0-9])` + regexp.QuoteMeta(old) + `([^0-9]|$)`)
	return re.ReplaceAll(b, []byte("${1}"+repl+"${2}"))
}

var (
	statusHeightRe = regexp.MustCompile(`"latest_block_height":"\d+"`)
	statusHashRe   = regexp.MustCompile(`"latest_block_hash":"[0-9A-Fa-f]*"`)
	statusTimeRe   = regexp.MustCompile(`"latest_block_time":"[^"]*"`)
)

// status reports MaxHeight as the chain head, with that block's hash and time when captured.
func (s *Server) status() (answer, bool) {
	i, ok := s.norm[key(http.MethodGet, "/status", url.Values{}, "", "")]
	if !ok {
		return answer{}, false
	}
	a, ok := s.answerOf(i)
	if !ok {
		return a, false
	}
	h := s.effectiveMax()
	body := statusHeightRe.ReplaceAll(a.body, []byte(fmt.Sprintf(`"latest_block_height":"%d"`, h)))
	if bi, ok := s.norm[key(http.MethodGet, "/block", url.Values{"height": {strconv.FormatInt(h, 10)}}, "", "")]; ok {
		if ba, ok := s.answerOf(bi); ok {
			var blk struct {
				Result struct {
					BlockID struct {
						Hash string `json:"hash"`
					} `json:"block_id"`
					Block struct {
						Header struct {
							Time string `json:"time"`
						} `json:"header"`
					} `json:"block"`
				} `json:"result"`
			}
			if json.Unmarshal(ba.body, &blk) == nil && blk.Result.BlockID.Hash != "" {
				body = statusHashRe.ReplaceAll(body, []byte(`"latest_block_hash":"`+blk.Result.BlockID.Hash+`"`))
				body = statusTimeRe.ReplaceAll(body, []byte(`"latest_block_time":"`+blk.Result.Block.Header.Time+`"`))
			}
		}
	}
	a.body = body
	return a, true
}

// latestREST answers blocks/latest from the REST txs-by-block capture at MaxHeight.
func (s *Server) latestREST() (answer, bool) {
	h := strconv.FormatInt(s.effectiveMax(), 10)
	i, ok := s.norm[key(http.MethodGet, "/cosmos/tx/v1beta1/txs/block/"+h, url.Values{"pagination.limit": {"100"}}, "", "")]
	if !ok {
		return answer{}, false
	}
	a, ok := s.answerOf(i)
	if !ok || a.status != http.StatusOK {
		return answer{}, false
	}
	var tb struct {
		BlockID json.RawMessage `json:"block_id"`
		Block   json.RawMessage `json:"block"`
	}
	if json.Unmarshal(a.body, &tb) != nil {
		return answer{}, false
	}
	out, _ := json.Marshal(map[string]json.RawMessage{"block_id": tb.BlockID, "block": tb.Block})
	return answer{status: http.StatusOK, ctype: a.ctype, body: out}, true
}

func (s *Server) miss(w http.ResponseWriter, m Miss) {
	s.mu.Lock()
	s.misses = append(s.misses, m)
	s.mu.Unlock()
	s.log.Debug("replay: miss", "request", m.String())
	b, _ := json.Marshal(map[string]string{"error": "replay: no captured response", "request": m.String()})
	answer{status: http.StatusNotFound, ctype: "application/json", body: b}.write(w)
}

// key builds a lookup key: query order and percent-encoding do not matter; 0x-hex is
// compared case-insensitively.
func key(method, path string, q url.Values, height, body string) string {
	var b strings.Builder
	b.WriteString(method)
	b.WriteByte(' ')
	b.WriteString(path)
	b.WriteByte('?')
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vs := append([]string(nil), q[k]...)
		for i, v := range vs {
			vs[i] = lowerHex(v)
		}
		sort.Strings(vs)
		for _, v := range vs {
			b.WriteString(url.QueryEscape(k))
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(v))
			b.WriteByte('&')
		}
	}
	b.WriteString("#h=")
	b.WriteString(height)
	b.WriteString("#b=")
	b.WriteString(body)
	return b.String()
}

func lowerHex(v string) string {
	if len(v) > 2 && (v[:2] == "0x" || v[:2] == "0X") {
		return strings.ToLower(v)
	}
	return v
}

func unescape(p string) string {
	if u, err := url.PathUnescape(p); err == nil {
		return u
	}
	return p
}

// canonJSON re-encodes JSON with sorted keys, compact, lower-cased 0x-hex strings.
func canonJSON(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(b)
	}
	out, err := json.Marshal(canonValue(v))
	if err != nil {
		return string(b)
	}
	return string(out)
}

func canonValue(v any) any {
	switch t := v.(type) {
	case string:
		return lowerHex(t)
	case []any:
		for i := range t {
			t[i] = canonValue(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = canonValue(t[k])
		}
	}
	return v
}

// heightOf classifies height-bearing GET/REST requests.
func heightOf(method, path string, q url.Values, header string) (string, int64) {
	if method == http.MethodGet {
		switch path {
		case "/block", "/block_results", "/commit", "/header", "/validators":
			if h, err := strconv.ParseInt(strings.Trim(q.Get("height"), `"`), 10, 64); err == nil {
				return "comet:" + path, h
			}
			return "", 0
		}
		const txsBlock = "/cosmos/tx/v1beta1/txs/block/"
		if rest, ok := strings.CutPrefix(path, txsBlock); ok {
			if h, err := strconv.ParseInt(rest, 10, 64); err == nil {
				return "rest:" + txsBlock, h
			}
		}
		const blocks = "/cosmos/base/tendermint/v1beta1/blocks/"
		if rest, ok := strings.CutPrefix(path, blocks); ok {
			if h, err := strconv.ParseInt(rest, 10, 64); err == nil {
				return "rest:" + blocks, h
			}
		}
	}
	if header != "" {
		if h, err := strconv.ParseInt(header, 10, 64); err == nil {
			return "rest:header", h
		}
	}
	return "", 0
}

// ---- JSON-RPC ----

type rpcReq struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

func rpcKey(method string, params json.RawMessage) string {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || string(p) == "null" {
		p = []byte("[]")
	}
	return method + " " + canonJSON(p)
}

func batchKey(reqs []rpcReq) string {
	var b strings.Builder
	for _, r := range reqs {
		b.WriteString(string(r.ID))
		b.WriteByte(' ')
		b.WriteString(rpcKey(r.Method, r.Params))
		b.WriteByte('\n')
	}
	return b.String()
}

// blockParamMethods take a block number as their first parameter.
var blockParamMethods = map[string]bool{
	"eth_getBlockByNumber": true, "eth_getBlockReceipts": true, "debug_traceBlockByNumber": true,
	"eth_getBlockTransactionCountByNumber": true,
}

func rpcHeight(method string, params json.RawMessage) (string, int64) {
	if !blockParamMethods[method] {
		return "", 0
	}
	var ps []json.RawMessage
	if json.Unmarshal(params, &ps) != nil || len(ps) == 0 {
		return "", 0
	}
	var tag string
	if json.Unmarshal(ps[0], &tag) != nil || !strings.HasPrefix(tag, "0x") {
		return "", 0
	}
	h, err := strconv.ParseInt(tag[2:], 16, 64)
	if err != nil {
		return "", 0
	}
	return "eth:" + method, h
}

// cometMethods are the CometBFT RPC routes with their positional parameter names.
var cometMethods = map[string][]string{
	"health": nil, "status": nil, "net_info": nil, "genesis": nil, "abci_info": nil,
	"num_unconfirmed_txs": nil, "consensus_state": nil, "dump_consensus_state": nil,
	"blockchain": {"minHeight", "maxHeight"}, "genesis_chunked": {"chunk"},
	"block": {"height"}, "block_by_hash": {"hash"}, "block_results": {"height"}, "commit": {"height"},
	"header": {"height"}, "header_by_hash": {"hash"}, "check_tx": {"tx"},
	"tx": {"hash", "prove"}, "tx_search": {"query", "prove", "page", "per_page", "order_by"},
	"block_search": {"query", "page", "per_page", "order_by"},
	"validators":   {"height", "page", "per_page"}, "consensus_params": {"height"},
	"unconfirmed_txs": {"limit"}, "broadcast_tx_sync": {"tx"}, "broadcast_tx_async": {"tx"},
	"broadcast_tx_commit": {"tx"}, "abci_query": {"path", "data", "height", "prove"},
}

// IsCometMethod reports whether a JSON-RPC method name is a CometBFT route (as opposed to an
// Ethereum namespace method such as eth_call).
func IsCometMethod(m string) bool { _, ok := cometMethods[m]; return ok }

// cometQuery turns JSON-RPC params into the URI query the CometBFT captures were made with.
func cometQuery(method string, params json.RawMessage) (url.Values, error) {
	names := cometMethods[method]
	vals := map[string]json.RawMessage{}
	p := bytes.TrimSpace(params)
	switch {
	case len(p) == 0 || string(p) == "null":
	case p[0] == '{':
		if err := json.Unmarshal(p, &vals); err != nil {
			return nil, err
		}
	case p[0] == '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(p, &arr); err != nil {
			return nil, err
		}
		for i, v := range arr {
			if i < len(names) {
				vals[names[i]] = v
			}
		}
	default:
		return nil, errors.New("params must be an object or an array")
	}
	q := url.Values{}
	for k, raw := range vals {
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		switch t := v.(type) {
		case nil:
		case json.Number:
			q.Set(k, t.String())
		case bool:
			q.Set(k, strconv.FormatBool(t))
		case string:
			switch {
			case k == "hash" || k == "tx":
				// bytes travel base64 in JSON-RPC, 0x-hex in URIs; a bare 64-digit hex hash is
				// valid base64 too, so hex is recognised first
				if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
					q.Set(k, "0x"+strings.ToUpper(t[2:]))
				} else if _, err := hex.DecodeString(t); err == nil && len(t) == 64 {
					q.Set(k, "0x"+strings.ToUpper(t))
				} else if b, err := base64.StdEncoding.DecodeString(t); err == nil {
					q.Set(k, "0x"+strings.ToUpper(hex.EncodeToString(b)))
				} else {
					q.Set(k, t)
				}
			case k == "data":
				q.Set(k, "0x"+strings.TrimPrefix(t, "0x"))
			case isInt(t):
				q.Set(k, t)
			default:
				q.Set(k, strconv.Quote(t))
			}
		default:
			q.Set(k, string(raw))
		}
	}
	return q, nil
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request, body []byte) {
	if body[0] == '{' {
		var req rpcReq
		if err := json.Unmarshal(body, &req); err != nil {
			s.miss(w, Miss{Method: r.Method, Path: "/", Body: string(body)})
			return
		}
		a, ok := s.rpcOne(req)
		if !ok {
			s.miss(w, Miss{Method: r.Method, Path: "/", Body: string(body)})
			return
		}
		a.write(w)
		return
	}
	var reqs []rpcReq
	if err := json.Unmarshal(body, &reqs); err != nil || len(reqs) == 0 {
		s.miss(w, Miss{Method: r.Method, Path: "/", Body: string(body)})
		return
	}
	if i, ok := s.batches[batchKey(reqs)]; ok {
		if a, ok := s.answerOf(i); ok {
			a.write(w)
			return
		}
	}
	var out bytes.Buffer
	out.WriteByte('[')
	for n, req := range reqs {
		if n > 0 {
			out.WriteByte(',')
		}
		a, ok := s.rpcOne(req)
		if !ok {
			b, _ := json.Marshal(req)
			s.recordMiss(Miss{Method: r.Method, Path: "/", Body: string(b)})
			id := req.ID
			if len(id) == 0 {
				id = json.RawMessage("null")
			}
			fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"replay: no captured response for %s"}}`, id, jsonEscape(req.Method))
			continue
		}
		out.Write(bytes.TrimSpace(a.body))
	}
	out.WriteByte(']')
	answer{status: http.StatusOK, ctype: "application/json", body: out.Bytes()}.write(w)
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func (s *Server) recordMiss(m Miss) {
	s.mu.Lock()
	s.misses = append(s.misses, m)
	s.mu.Unlock()
}

// rpcOne answers one JSON-RPC call, with the caller's id.
func (s *Server) rpcOne(req rpcReq) (answer, bool) {
	id := req.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if IsCometMethod(req.Method) {
		q, err := cometQuery(req.Method, req.Params)
		if err != nil {
			return answer{}, false
		}
		a, ok := s.lookup(http.MethodGet, "/"+req.Method, q, "", nil)
		if !ok {
			return a, false
		}
		a.body = withID(a.body, id)
		return a, true
	}
	_, captured := s.rpc[rpcKey(req.Method, req.Params)]
	if kind, h := rpcHeight(req.Method, req.Params); kind != "" && h > s.effectiveMax() && (!captured || s.maxHeight != nil) {
		if a, ok := s.future(kind, h); ok {
			a.body = withID(a.body, id)
			return a, true
		}
	}
	if req.Method == "eth_blockNumber" && s.maxHeight != nil {
		b := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"0x%x"}`, id, s.effectiveMax())
		return answer{status: http.StatusOK, ctype: "application/json", body: []byte(b)}, true
	}
	ref, ok := s.rpc[rpcKey(req.Method, req.Params)]
	if !ok {
		return answer{}, false
	}
	a, ok := s.answerOf(ref.entry)
	if !ok {
		return a, false
	}
	if ref.batch {
		var elems []json.RawMessage
		if json.Unmarshal(a.body, &elems) != nil {
			return answer{}, false
		}
		found := false
		for _, el := range elems {
			var head struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(el, &head) == nil && string(head.ID) == ref.id {
				a.body, found = el, true
				break
			}
		}
		if !found {
			return answer{}, false
		}
		a.status = http.StatusOK
	}
	a.body = withID(a.body, id)
	return a, true
}

// withID replaces the value of the top-level "id" member, leaving every other byte as captured.
func withID(body []byte, id json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return body
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return body
		}
		start := dec.InputOffset()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return body
		}
		if t != "id" {
			continue
		}
		end := dec.InputOffset()
		seg := body[start:end]
		off := bytes.Index(seg, v)
		if off < 0 {
			return body
		}
		if bytes.Equal(v, id) {
			return body
		}
		out := make([]byte, 0, len(body)+len(id))
		out = append(out, body[:int(start)+off]...)
		out = append(out, id...)
		out = append(out, body[int(start)+off+len(v):]...)
		return out
	}
	return body
}
