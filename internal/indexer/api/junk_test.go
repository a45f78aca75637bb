package api

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
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

// serveOn serves h with httpapi.Serve on a fresh listener until the test ends.
func serveOn(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.Serve(ctx, ln, h, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String()
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
			addr := serveOn(t, h)
			j := indexerJunk(st.(evmStore))
			tally := httpapitest.Hammer(t, addr, junkRequests, 4, j.Request)
			t.Logf("%s: %v", tc.name, tally)
			if tally.Requests != junkRequests || tally.ByStatus[500] != 0 {
				t.Errorf("%v", tally)
			}
		})
	}
}
