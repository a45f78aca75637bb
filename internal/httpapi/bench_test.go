package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// The benchmarks measure what one cached answer costs (go test -run '^$' -bench . -benchmem
// ./internal/httpapi/). BenchmarkCachedHit runs the API's handler alone with a writer that
// allocates nothing (nopWriter), so allocs/op are exactly ours (wrap, cache lookup, headers, metrics);
// BenchmarkCachedHitHTTP sends the same request over a loopback keep-alive connection, so a
// -cpuprofile shows net/http's share beside ours; BenchmarkCeilingHTTP is the fixed answer of
// scripts/sidebyside/ceiling over the same connection, the figure the API is held against.

// benchBody is the size of a busy-capture tx by hash answer (~1 KiB, like the ceiling's).
var benchBody = `{"tx":{"pad":"` + strings.Repeat("x", 1000) + `"}}`

func benchAPI(tb testing.TB, cors bool) http.Handler {
	tb.Helper()
	// The indexer API's options: a 10 s request timeout, the version a cached height (known
	// without a read, as the store's is within 100 ms of its last read or commit).
	opts := Options{Namespace: "bench", Cache: NewCache(1 << 20), RequestTimeout: 10 * time.Second,
		Version:    func(context.Context) (int64, error) { return 1, nil },
		VersionNow: func() (int64, bool) { return 1, true }}
	if cors {
		opts.CORS = CORS{Enabled: true, AllowOrigins: []string{"*"}}
	}
	return New(opts, []Route{
		{Pattern: "GET /indexer/tx/v1/txs/{hash}", CachePinned: true, Handler: func(*http.Request) (any, error) {
			return Pinned{Body: Raw(benchBody)}, nil
		}},
		{Pattern: "GET /indexer/block/v1/blocks", Cache: true, Handler: func(*http.Request) (any, error) {
			return Raw(benchBody), nil
		}},
	})
}

func benchInProcess(b *testing.B, h http.Handler, target, origin string) {
	req, err := http.NewRequest(http.MethodGet, "http://bench"+target, nil)
	if err != nil {
		b.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	w := &nopWriter{h: http.Header{}}
	h.ServeHTTP(w, req) // the miss that fills the cache
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
	if w.h.Get("Content-Length") != strconv.Itoa(len(benchBody)) {
		b.Fatalf("%s: answered %v", target, w.h)
	}
}

// BenchmarkCachedHit: a pinned answer (tx by hash) and a versioned one (a list at the current
// height), each from the cache.
func BenchmarkCachedHit(b *testing.B) {
	for _, tc := range hitCases {
		origin := ""
		if tc.cors {
			origin = benchOrigin
		}
		b.Run(tc.name, func(b *testing.B) { benchInProcess(b, benchAPI(b, tc.cors), tc.target, origin) })
	}
}

// hitCases are the cached answers the hit benchmarks serve: a pinned one, a versioned one, and
// the pinned one to a browser (CORS on).
var hitCases = []struct {
	name, target string
	cors         bool
}{
	{"pinned", "/indexer/tx/v1/txs/ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789", false},
	{"versioned", "/indexer/block/v1/blocks?pagination.limit=20", false},
	{"pinned-cors", "/indexer/tx/v1/txs/ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789", true},
}

// benchOrigin is a browser's Origin, as an explorer's requests carry.
const benchOrigin = "https://explorer.example"

// benchHTTP serves h on loopback (by Serve, or by net/http when std) and sends one GET at a
// time over one kept-alive connection, reading each response by its Content-Length: the
// client side is as thin as it can be, so a profile of the process is mostly the server's.
func benchHTTP(b *testing.B, h http.Handler, target string, std bool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if std {
			_ = serveNetHTTP(ctx, ln, h, nil)
		} else {
			_ = Serve(ctx, ln, h, nil)
		}
	}()
	defer func() { cancel(); <-done }()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	req := []byte("GET " + target + " HTTP/1.1\r\nHost: bench\r\n\r\n")
	br := bufio.NewReaderSize(conn, 64<<10)
	body := make([]byte, 0, 64<<10)
	roundTrip := func() {
		if _, err := conn.Write(req); err != nil {
			b.Fatal(err)
		}
		n := -1
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				b.Fatal(err)
			}
			if len(line) <= 2 {
				break
			}
			if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
				if _, err := fmt.Sscan(string(bytes.TrimSpace(v)), &n); err != nil {
					b.Fatal(err)
				}
			}
		}
		if n < 0 {
			b.Fatal("response without Content-Length")
		}
		if _, err := io.ReadFull(br, body[:n]); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip()
	b.ReportAllocs()
	for b.Loop() {
		roundTrip()
	}
}

// BenchmarkCachedHitHTTP: a cached answer over loopback, written by fasthttp (serveFast) and,
// for comparison, by net/http.
func BenchmarkCachedHitHTTP(b *testing.B) {
	const target = "/indexer/tx/v1/txs/ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789"
	b.Run("fasthttp", func(b *testing.B) { benchHTTP(b, benchAPI(b, false), target, false) })
	b.Run("nethttp", func(b *testing.B) { benchHTTP(b, benchAPI(b, false), target, true) })
}

// BenchmarkCeilingHTTP is scripts/peerbench's ceiling: a fixed 1 KiB body from net/http.
func BenchmarkCeilingHTTP(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 1024)
	benchHTTP(b, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }), "/", true)
}

// BenchmarkServeFast: serveFast alone (fasthttp's request context, no connection), for the same
// three answers as BenchmarkCachedHit: what rollgate adds to fasthttp per cached answer.
func BenchmarkServeFast(b *testing.B) {
	for _, tc := range hitCases {
		b.Run(tc.name, func(b *testing.B) {
			s := benchAPI(b, tc.cors).(*server)
			req, err := http.NewRequest(http.MethodGet, "http://bench"+tc.target, nil)
			if err != nil {
				b.Fatal(err)
			}
			s.ServeHTTP(&nopWriter{h: http.Header{}}, req) // the miss that fills the cache
			var c fasthttp.RequestCtx
			c.Request.Header.SetMethod(http.MethodGet)
			c.Request.SetRequestURI(tc.target)
			if tc.cors {
				c.Request.Header.Set("Origin", benchOrigin)
			}
			b.ReportAllocs()
			for b.Loop() {
				c.Response.Reset()
				if !s.serveFast(&c, c.URI().PathOriginal()) {
					b.Fatal("not served from the cache")
				}
			}
		})
	}
}
