package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rollgate/rollgate/internal/testutil"
)

func start(t *testing.T, name string, opts ...Option) (*Server, *httptest.Server, string) {
	t.Helper()
	dir := testutil.Fixture(t, name)
	s, err := New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv, dir
}

func do(t *testing.T, method, url string, body []byte, hdr map[string]string) (int, string, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return testutil.Do(t, req)
}

// Every captured request, sent as captured, gets the captured status, content type and bytes.
func TestReplaysEveryCapture(t *testing.T) {
	for _, name := range testutil.WithBusy("minievm", "minimove", "miniwasm") {
		t.Run(name, func(t *testing.T) {
			s, srv, dir := start(t, name, CacheSize(16))
			n := 0
			for _, rec := range s.Records() {
				path, query := splitURL(rec.URL)
				if strings.Contains(path, "%%") {
					continue // not a valid request line; net/http cannot send it
				}
				target := srv.URL + path
				if query != "" {
					target += "?" + query
				}
				var body []byte
				if len(rec.RequestBody) > 0 && string(rec.RequestBody) != "null" {
					body = rec.RequestBody
				}
				status, ctype, got := do(t, rec.Method, target, body, rec.RequestHeaders)
				want, err := os.ReadFile(filepath.Join(dir, rec.File))
				if err != nil {
					t.Fatal(err)
				}
				if status != rec.Status || ctype != rec.ContentType {
					t.Errorf("%s: %d %q, want %d %q", rec.File, status, ctype, rec.Status, rec.ContentType)
				}
				if !bytes.Equal(got, want) {
					// Later captures of the same request win nothing: the first capture answers.
					if first := firstFileFor(s, rec); first == rec.File {
						t.Errorf("%s: body differs from the capture", rec.File)
					}
				}
				n++
			}
			if n == 0 || len(s.Misses()) != 0 {
				t.Fatalf("%d requests, misses %v", n, s.Misses())
			}
		})
	}
}

// firstFileFor returns the file of the first record with the same request (captures may repeat
// a request, e.g. the same balance query under two names).
func firstFileFor(s *Server, rec Record) string {
	for _, r := range s.Records() {
		if r.Method == rec.Method && r.URL == rec.URL && bytes.Equal(canon(r.RequestBody), canon(rec.RequestBody)) &&
			normHeight(r.RequestHeaders["x-cosmos-block-height"]) == normHeight(rec.RequestHeaders["x-cosmos-block-height"]) {
			return r.File
		}
	}
	return ""
}

func canon(b json.RawMessage) []byte {
	if len(b) == 0 {
		return nil
	}
	return []byte(canonJSON(b))
}

func TestMatchingIsLenient(t *testing.T) {
	_, srv, dir := start(t, "miniwasm")
	tests := []struct {
		name, target, file string
		hdr                map[string]string
	}{
		{"query order", "/cosmos/auth/v1beta1/accounts?pagination.offset=0&pagination.limit=100", "rest/misc/accounts_limit100_offset0_at_h1.json", map[string]string{"x-cosmos-block-height": "1"}},
		{"unescaped query", "/cosmos/bank/v1beta1/supply/by_denom?denom=factory/init1ew06r65m3galgg4gvw0j8hmhafnqyrkzsqnw36/wtt", "rest/tokenfactory/supply_of_factory_denom.json", nil},
		{"escaped path", "/cosmos/tx/v1beta1/txs/block/%35", "rest/txs_block/0005.json", nil},
		{"hex case", "/tx?hash=0x" + "5f3d52346c29df7920044d73a7bc3d0280d7b4984eccca71fc907622d2fd2fec", "comet/tx/5F3D52346C29DF7920044D73A7BC3D0280D7B4984ECCCA71FC907622D2FD2FEC.json", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			if tc.name == "escaped path" {
				target += "?pagination.limit=100"
			}
			status, _, got := do(t, "GET", srv.URL+target, nil, tc.hdr)
			want, _ := os.ReadFile(filepath.Join(dir, tc.file))
			if status != 200 || !bytes.Equal(got, want) {
				t.Fatalf("status %d, body %.200s", status, got)
			}
		})
	}
}

func TestJSONRPC(t *testing.T) {
	_, srv, dir := start(t, "minievm")
	read := func(f string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	block5 := read("comet/block/0005.json")
	hash := "F064CD3FCB0431F6869848082A50105C697D1F7970CF85F1FF676790F872D5FE"
	rawHash, _ := hex.DecodeString(hash)
	tests := []struct {
		name string
		body string
		want []byte
	}{
		{"eth id rewritten", `{"jsonrpc":"2.0","id":42,"method":"eth_getBlockReceipts","params":["0x17"]}`,
			bytes.Replace(read("evm/eth_getBlockReceipts/0023.json"), []byte(`"id":1,`), []byte(`"id":42,`), 1)},
		{"eth same id verbatim", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`, read("evm/misc/eth_chainId.json")},
		{"comet block by JSON-RPC", `{"jsonrpc":"2.0","id":7,"method":"block","params":{"height":"5"}}`,
			bytes.Replace(block5, []byte(`"id":-1,`), []byte(`"id":7,`), 1)},
		{"comet positional params", `{"jsonrpc":"2.0","id":"x","method":"block","params":["5"]}`,
			bytes.Replace(block5, []byte(`"id":-1,`), []byte(`"id":"x",`), 1)},
		{"comet tx by base64 hash", `{"jsonrpc":"2.0","id":3,"method":"tx","params":{"hash":"` + base64.StdEncoding.EncodeToString(rawHash) + `"}}`,
			bytes.Replace(read("comet/tx/"+hash+".json"), []byte(`"id":-1,`), []byte(`"id":3,`), 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, got := do(t, "POST", srv.URL, []byte(tc.body), nil)
			if status != 200 || !bytes.Equal(got, tc.want) {
				t.Fatalf("status %d\n got %.300s\nwant %.300s", status, got, tc.want)
			}
		})
	}

	// A batch never captured is answered element by element, including a CometBFT element.
	batch := `[{"jsonrpc":"2.0","id":10,"method":"block","params":{"height":"5"}},{"jsonrpc":"2.0","id":11,"method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","id":12,"method":"eth_call","params":[{"to":"0xc30c05d81ce305af3eb99f978515cbe339c470aa","data":"0x70a082310000000000000000000000008c8d35429f74ec245f8ef2f4fd1e551cff97d650"},"0x44"]}]`
	status, _, got := do(t, "POST", srv.URL, []byte(batch), nil)
	var elems []struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(got, &elems); err != nil || status != 200 || len(elems) != 3 {
		t.Fatalf("batch: %d %v %.300s", status, err, got)
	}
	for i, id := range []string{"10", "11", "12"} {
		if string(elems[i].ID) != id || len(elems[i].Result) == 0 {
			t.Errorf("element %d: %s %.100s", i, elems[i].ID, elems[i].Result)
		}
	}
	if string(elems[1].Result) != `"0x44"` || string(elems[2].Result) != `"0x000000000000000000000000000000000000000000000000000000e8d47ed6c5"` {
		t.Errorf("batch results %s %s", elems[1].Result, elems[2].Result)
	}
}

func TestMaxHeight(t *testing.T) {
	var head atomic.Int64
	head.Store(30)
	s, srv, dir := start(t, "minievm", MaxHeight(head.Load))
	tests := []struct {
		name, method, target, body string
		status                     int
		wantSub                    string
	}{
		{"comet block", "GET", "/block?height=31", "", 500, `"data":"height 31 must be less than or equal to the current blockchain height 30"`},
		{"comet block_results", "GET", "/block_results?height=40", "", 500, `height 40 must be less than or equal to the current blockchain height 30`},
		{"comet JSON-RPC", "POST", "/", `{"jsonrpc":"2.0","id":5,"method":"block_results","params":{"height":"31"}}`, 500, `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error","data":"height 31 must be less than or equal to the current blockchain height 30"}}`},
		{"rest txs", "GET", "/cosmos/tx/v1beta1/txs/block/31?pagination.limit=100", "", 500, `requested height 31 but height must not be less than 1 or greater than the current height 30"`},
		{"eth block", "POST", "/", `{"jsonrpc":"2.0","id":9,"method":"eth_getBlockByNumber","params":["0x1f",true]}`, 200, `{"jsonrpc":"2.0","id":9,"result":null}`},
		{"eth trace", "POST", "/", `{"jsonrpc":"2.0","id":9,"method":"debug_traceBlockByNumber","params":["0x1f",{"tracer":"callTracer"}]}`, 200, `requested height is greater than the latest block height`},
		{"eth head", "POST", "/", `{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber","params":[]}`, 200, `{"jsonrpc":"2.0","id":2,"result":"0x1e"}`},
		{"status", "GET", "/status", "", 200, `"latest_block_height":"30"`},
		{"rest head", "GET", "/cosmos/base/tendermint/v1beta1/blocks/latest", "", 200, `"height":"30"`},
		{"below head", "GET", "/block?height=30", "", 200, `"height":"30"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			status, _, got := do(t, tc.method, srv.URL+tc.target, body, nil)
			if status != tc.status || !bytes.Contains(got, []byte(tc.wantSub)) {
				t.Fatalf("status %d body %.400s", status, got)
			}
		})
	}
	// The head moves: the same request now answers the captured block.
	head.Store(31)
	status, _, got := do(t, "GET", srv.URL+"/block?height=31", nil, nil)
	want, _ := os.ReadFile(filepath.Join(dir, "comet/block/0031.json"))
	if status != 200 || !bytes.Equal(got, want) {
		t.Fatalf("block 31 at head 31: %d", status)
	}
	if m := s.Misses(); len(m) != 0 {
		t.Fatalf("misses %v", m)
	}
}

func TestMisses(t *testing.T) {
	s, srv, _ := start(t, "minievm")
	status, _, got := do(t, "GET", srv.URL+"/block?height=5000", nil, nil)
	if status != 500 || !bytes.Contains(got, []byte("height 5000 must be less than or equal to the current blockchain height 72")) {
		t.Fatalf("beyond the capture: %d %s", status, got)
	}
	status, ctype, got := do(t, "GET", srv.URL+"/no/such/route?x=1", nil, map[string]string{"x-cosmos-block-height": "3"})
	var body struct{ Error, Request string }
	if status != 404 || ctype != "application/json" || json.Unmarshal(got, &body) != nil || body.Request != "GET /no/such/route?x=1 [height 3]" {
		t.Fatalf("miss: %d %q %s", status, ctype, got)
	}
	status, _, _ = do(t, "POST", srv.URL, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000000001","latest"]}`), nil)
	if status != 404 {
		t.Fatalf("unknown JSON-RPC call: %d", status)
	}
	if m := s.Misses(); len(m) != 2 || m[0].Path != "/no/such/route" || !strings.Contains(m[1].Body, "eth_getBalance") {
		t.Fatalf("misses %v", m)
	}
	s.ResetMisses()
	if len(s.Misses()) != 0 {
		t.Fatal("ResetMisses")
	}
}

func TestWithID(t *testing.T) {
	tests := []struct{ in, id, want string }{
		{`{"jsonrpc":"2.0","id":1,"result":"0x1"}`, `7`, `{"jsonrpc":"2.0","id":7,"result":"0x1"}`},
		{`{"jsonrpc":"2.0","id":-1,"result":{"id":5}}`, `"a"`, `{"jsonrpc":"2.0","id":"a","result":{"id":5}}`},
		{`{"result":{"id":5}, "id" : 1}`, `2`, `{"result":{"id":5}, "id" : 2}`},
		{`{"jsonrpc":"2.0","id":1,"result":null}`, `1`, `{"jsonrpc":"2.0","id":1,"result":null}`},
		{`not json`, `1`, `not json`},
	}
	for _, tc := range tests {
		if got := string(withID([]byte(tc.in), json.RawMessage(tc.id))); got != tc.want {
			t.Errorf("withID(%s, %s) = %s", tc.in, tc.id, got)
		}
	}
}

// A REST query at a height above MaxHeight answers like the captured "height in the future".
func TestMaxHeightRESTHeader(t *testing.T) {
	_, srv, _ := start(t, "minimove", MaxHeight(func() int64 { return 10 }))
	target := srv.URL + "/initia/move/v1/accounts/0x69e44905fca4023591a4d9527fc155bcb0f8b7f260351a86f9a5ca053bc46a9a/resources/by_struct_tag?struct_tag=0x1::nft::Nft"
	status, _, got := do(t, "GET", target, nil, map[string]string{"x-cosmos-block-height": "19"})
	if status != 500 || !bytes.Contains(got, []byte("cannot query with height in the future")) {
		t.Fatalf("status %d body %s", status, got)
	}
	status, _, _ = do(t, "GET", target, nil, map[string]string{"x-cosmos-block-height": "9"})
	if status != 404 { // nothing was captured at height 9: a miss, not an invented answer
		t.Fatalf("height 9: status %d", status)
	}
}
