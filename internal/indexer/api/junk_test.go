package api

import (
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/httpapi/httpapitest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// junkRequests is how many junk requests TestJunkRequestsBothTransports sends to each transport.
const junkRequests = 10000

// indexerJunk is the junk generator over the indexer's routes (with the EVM and NFT ones), its
// loaded chain's values and the query parameters its routes read.
func indexerJunk(st evmStore) httpapitest.Junk {
	routes := append((&server{cfg: Config{Features: evmFeatures(st)}}).routes(), httpapitest.Operational...)
	routes = append(routes, httpapi.Route{Pattern: "GET /status"}, httpapi.Route{Pattern: "GET /nope/{x}"})
	sampleList := map[string][]string{}
	for k, v := range samples {
		sampleList[k] = []string{v}
	}
	sampleList["account"] = append(sampleList["account"], "0x"+acc1Hex, "init1zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg30th3ed")
	sampleList["collection_addr"] = append(sampleList["collection_addr"], "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	return httpapitest.Junk{
		Routes:  routes,
		Samples: sampleList,
		Params: map[string][]string{
			"pagination.limit": {"1", "2", "1000", "1001"}, "pagination.offset": {"0", "3"}, "pagination.reverse": {"true", "false"},
			"pagination.key":         {b64(`{"sequence":32}`), b64(`{"height":30}`), b64(`{"height":1,"token_id":"9"}`)},
			"pagination.count_total": {"false", "true"}, "msgs": {"/cosmos.bank.v1beta1.MsgSend", "cosmos.bank.v1beta1.MsgSend"},
			"is_signer": {"true"}, "account": {acc1}, "collection_addr": {"0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
			"token_id": {"1", "%FF"}, "order_by": {"height", "token_id"}, "from": {"0", "3", "999999"}, "denom": {"uinit"},
		},
		Seed: 30,
	}
}

// TestJunkRequestsBothTransports: 10,000 junk requests (httpapitest.Junk) to the indexer on
// each transport — fasthttp (the API with its response cache) over PostgreSQL, net/http
// (without) over SQLite — get no 5xx, and every error is the JSON error envelope.
func TestJunkRequestsBothTransports(t *testing.T) {
	for _, tc := range []struct {
		name, dsn string
		cache     int64
	}{
		{"fasthttp on postgres", "postgres", 64 << 20},
		{"net/http on sqlite", "sqlite", -1}, // no cache: net/http
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "idx.db")
			if tc.dsn == "postgres" {
				dsn = testutil.PostgresDSN(t)
			}
			st := openLoaded(t, dsn)
			cfg := testCfg
			cfg.CacheBytes = tc.cache
			// A stream the client closed at once is found at the next heartbeat under
			// fasthttp: keep that short, or the streams opened count against the per-IP cap.
			cfg.Streams = httpapi.StreamOptions{Heartbeat: 100 * time.Millisecond}
			h := newEVM(cfg, st.(evmStore), nil, nil)
			addr := httpapitest.Serve(t, h)
			j := indexerJunk(st.(evmStore))
			tally := httpapitest.Hammer(t, addr, junkRequests, 4, j.Request)
			t.Logf("%s: %v", tc.name, tally)
			if tally.Requests != junkRequests || tally.ByStatus[500] != 0 {
				t.Errorf("%v", tally)
			}
		})
	}
}

// TestMsgsLimitOverBothTransports: the documented msgs limit is reachable over real HTTP on both
// transports with real type URLs, as a browser escapes them and in either form (repeated or
// comma-separated): 100 of the longest (an ICA controller message, 81 bytes) list the txs of
// the one that matches; 101 are the JSON 400.
func TestMsgsLimitOverBothTransports(t *testing.T) {
	const ica = "/ibc.applications.interchain_accounts.controller.v1.MsgRegisterInterchainAccount"
	msgs := func(n int, repeated bool) string {
		types := make([]string, n)
		for i := range types {
			types[i] = url.QueryEscape(ica)
		}
		types[0] = url.QueryEscape("/minievm.evm.v1.MsgCall")
		if repeated {
			return "msgs=" + strings.Join(types, "&msgs=")
		}
		return "msgs=" + strings.Join(types, ",")
	}
	st := openLoaded(t, "sqlite:"+filepath.Join(t.TempDir(), "idx.db"))
	for _, cache := range []int64{64 << 20, -1} {
		cfg := testCfg
		cfg.CacheBytes = cache
		base := "http://" + httpapitest.Serve(t, newEVM(cfg, st.(evmStore), nil, nil)) + "/indexer/tx/v1/txs?pagination.limit=1&"
		name := map[bool]string{true: "fasthttp", false: "net/http"}[cache > 0]
		want := get(t, base+"msgs=minievm.evm.v1.MsgCall")
		for _, repeated := range []bool{false, true} {
			q := msgs(100, repeated)
			if status, body := getStatus(t, base+q); status != 200 || body != want {
				t.Errorf("%s: 100 msgs (%d bytes of query, repeated %v): %d %.200s", name, len(q), repeated, status, body)
			}
			if status, body := getStatus(t, base+msgs(101, repeated)); status != 400 || !strings.Contains(body, "at most 100") {
				t.Errorf("%s: 101 msgs (repeated %v): %d %.200s", name, repeated, status, body)
			}
		}
	}
}

func getStatus(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func get(t *testing.T, u string) string {
	t.Helper()
	status, body := getStatus(t, u)
	if status != 200 {
		t.Fatalf("GET %s: %d %s", u, status, body)
	}
	return body
}
