package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
)

// Benchmarks run on demand only (go test -run '^$' -bench . ./internal/indexer/api/). They use
// a SQLite store filled with ROLLGATE_BENCH_TXS synthetic txs (default 20000), or the store
// named by ROLLGATE_BENCH_DSN as it is (e.g. a PostgreSQL database filled by `rollgate bench`),
// without the response cache unless the name says Cached.

var bench struct {
	once  sync.Once
	dir   string
	h     http.Handler // without the response cache: every request reaches the store
	hc    http.Handler // with it (the default)
	r     store.Reader
	db    *store.DB // closed by TestMain: its pool's goroutines would otherwise outlive the tests
	total int64
	err   error
}

// TestMain removes the benchmarks' store, and fails the package when a goroutine outlives the
// tests: the servers and clients started here must all stop when their test ends.
func TestMain(m *testing.M) {
	code := m.Run()
	if bench.db != nil {
		bench.db.Close()
	}
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	if code == 0 {
		// fasthttp's own (TestJunkRequestsBothTransports serves the API on it) are by design.
		var opts []goleak.Option
		for _, fn := range httpapi.LingeringGoroutines {
			opts = append(opts, goleak.IgnoreAnyFunction(fn))
		}
		if err := goleak.Find(opts...); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func benchSetup(b *testing.B) (http.Handler, int64) {
	b.Helper()
	bench.once.Do(func() {
		ctx := context.Background()
		dsn := os.Getenv("ROLLGATE_BENCH_DSN")
		if dsn == "" {
			bench.dir, bench.err = os.MkdirTemp("", "rollgate-bench-")
			if bench.err != nil {
				return
			}
			dsn = "sqlite:" + filepath.Join(bench.dir, "bench.db")
		}
		db, err := store.Open(ctx, dsn, nil)
		if err != nil {
			bench.err = err
			return
		}
		bench.db = db
		if h, _ := db.IndexedHeight(ctx); h == 0 {
			n := 20000
			if s := os.Getenv("ROLLGATE_BENCH_TXS"); s != "" {
				n, _ = strconv.Atoi(s)
			}
			if bench.err = storetest.Fill(ctx, db, n, storetest.Options{}); bench.err != nil {
				return
			}
		}
		page, err := db.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1, Desc: true, CountTotal: true})
		if err != nil {
			bench.err = err
			return
		}
		bench.r, bench.total = db, page.Total
		bench.h = New(Config{ChainID: "bench-1", CacheBytes: -1}, db, nil, nil)
		bench.hc = New(Config{ChainID: "bench-1"}, db, nil, nil)
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.h, bench.total
}

func benchGet(b *testing.B, h http.Handler, path string) {
	b.Helper()
	rec := do(h, path)
	if rec.Code != 200 {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "http://bench"+path, nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
	}
}

func BenchmarkTxByHash(b *testing.B) {
	h, total := benchSetup(b)
	benchGet(b, h, "/indexer/tx/v1/txs/"+benchTxHash(b, total))
}

// BenchmarkTxByHashCached is the same URL again and again with the response cache on: after
// the first request every answer is a cache hit.
func BenchmarkTxByHashCached(b *testing.B) {
	_, total := benchSetup(b)
	benchGet(b, bench.hc, "/indexer/tx/v1/txs/"+benchTxHash(b, total))
}

func benchTxHash(b *testing.B, total int64) string {
	b.Helper()
	page, err := bench.r.Txs(context.Background(), store.TxFilter{}, store.Page{Limit: 1, Offset: total / 2, Desc: true})
	if err != nil || len(page.Txs) == 0 {
		b.Fatal(err)
	}
	var tx struct {
		TxHash string `json:"txhash"`
	}
	if err := json.Unmarshal(page.Txs[0].JSON, &tx); err != nil {
		b.Fatal(err)
	}
	return tx.TxHash
}

func BenchmarkBlockByHeight(b *testing.B) {
	h, _ := benchSetup(b)
	benchGet(b, h, "/indexer/block/v1/blocks/100")
}

func BenchmarkBlocksList(b *testing.B) {
	h, _ := benchSetup(b)
	benchGet(b, h, "/indexer/block/v1/blocks?pagination.limit=20")
}

func BenchmarkTxsList(b *testing.B) {
	h, _ := benchSetup(b)
	benchGet(b, h, "/indexer/tx/v1/txs?pagination.limit=20")
}

// BenchmarkTxsDeepPage asks for a page 90% deep with an offset key; the store turns it into a
// sequence range, so it should cost about what BenchmarkTxsList costs.
func BenchmarkTxsDeepPage(b *testing.B) {
	h, total := benchSetup(b)
	key := base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(total*9/10, 10)))
	benchGet(b, h, "/indexer/tx/v1/txs?pagination.limit=20&pagination.key="+url.QueryEscape(key))
}

func BenchmarkTxsDeepCursor(b *testing.B) {
	h, total := benchSetup(b)
	key := base64.StdEncoding.EncodeToString([]byte(`{"sequence":` + strconv.FormatInt(total/10, 10) + `}`))
	benchGet(b, h, "/indexer/tx/v1/txs?pagination.limit=20&pagination.key="+url.QueryEscape(key))
}

func BenchmarkTxsMsgsFirstPage(b *testing.B) {
	h, _ := benchSetup(b)
	benchGet(b, h, "/indexer/tx/v1/txs?pagination.limit=20&msgs=minievm.evm.v1.MsgCall&pagination.count_total=false")
}

// BenchmarkTxsMsgsTwoTypes names a common and a rare type: the page merges two bounded seeks.
func BenchmarkTxsMsgsTwoTypes(b *testing.B) {
	h, _ := benchSetup(b)
	benchGet(b, h, "/indexer/tx/v1/txs?pagination.limit=20&msgs=cosmos.bank.v1beta1.MsgSend,minievm.evm.v1.MsgCall&pagination.count_total=false")
}

// BenchmarkTxsMsgsDeepOffset skips 90% of one message type's txs on the (msg_type_id,
// sequence) index alone.
func BenchmarkTxsMsgsDeepOffset(b *testing.B) {
	h, total := benchSetup(b)
	benchGet(b, h, "/indexer/tx/v1/txs?pagination.limit=20&msgs=minievm.evm.v1.MsgCall&pagination.count_total=false&pagination.offset="+
		strconv.FormatInt(total/10*9/10, 10))
}

func BenchmarkTxsByAccount(b *testing.B) {
	h, _ := benchSetup(b)
	benchGet(b, h, "/indexer/tx/v1/txs/by_account/"+syntheticAccount()+"?pagination.limit=20")
}

// BenchmarkTxsByAccountDeepOffset pages 90% into the account's txs by offset: a rank range.
func BenchmarkTxsByAccountDeepOffset(b *testing.B) {
	h, _ := benchSetup(b)
	acc := syntheticAccount()
	rec := do(h, "/indexer/tx/v1/txs/by_account/"+acc+"?pagination.limit=1")
	var body struct {
		Pagination paginationJSON `json:"pagination"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	n, _ := strconv.ParseInt(body.Pagination.Total, 10, 64)
	benchGet(b, h, "/indexer/tx/v1/txs/by_account/"+acc+"?pagination.limit=20&pagination.offset="+strconv.FormatInt(n*9/10, 10))
}

func BenchmarkTxsByHeight(b *testing.B) {
	h, total := benchSetup(b)
	benchGet(b, h, "/indexer/tx/v1/txs/by_height/"+strconv.FormatInt(total/20, 10))
}

func BenchmarkBlocksDeepPage(b *testing.B) {
	h, total := benchSetup(b)
	benchGet(b, h, "/indexer/block/v1/blocks?pagination.limit=20&pagination.offset="+strconv.FormatInt(total/10*9/10, 10))
}

// syntheticAccount is an account storetest.Fill makes sign every Accounts-th tx.
func syntheticAccount() string {
	s, _ := address.Bech32("init", storetest.Account(1))
	return s
}
