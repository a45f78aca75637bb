// Command ceiling serves a fixed body for every request: the ceiling figure: "what Go's
// net/http serves for a fixed 1 KB body on this machine kind". series.sh measures it between
// the API runs, so a series says how fast the host was while it ran (this machine's host moves
// it by a quarter from one hour to the next). `/` answers 1 KiB; `/size/N` answers N bytes
// (up to 4 MiB), so peerbench.sh can hold each route against a fixed answer of that route's
// own size ("a fixed answer of the same size", docs/performance.md).
//
// -stack picks the HTTP stack: fasthttp (the default) is the one rollgate's indexer API writes
// its cached answers with (internal/httpapi/serve.go), so the ceiling is what that stack serves
// with nothing of rollgate's in the way; nethttp is Go's standard server, the ceiling of the
// runs before rollgate moved to fasthttp.
package main

import (
	"bytes"
	"flag"
	"log"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

const maxSize = 4 << 20

func main() {
	addr := flag.String("listen", "127.0.0.1:18699", "listen address")
	stack := flag.String("stack", "fasthttp", "HTTP stack: fasthttp or nethttp")
	flag.Parse()
	var bodies sync.Map // size → []byte: the answer is built once per size, as a cache hit is
	body := func(n int) []byte {
		if b, ok := bodies.Load(n); ok {
			return b.([]byte)
		}
		b, _ := bodies.LoadOrStore(n, bytes.Repeat([]byte("x"), n))
		return b.([]byte)
	}
	size := func(path string) (int, bool) {
		s, ok := strings.CutPrefix(path, "/size/")
		if !ok {
			return 1024, true
		}
		v, err := strconv.Atoi(s)
		return v, err == nil && v >= 0 && v <= maxSize
	}
	const bad = "size: want 0..4194304"
	switch *stack {
	case "fasthttp":
		srv := &fasthttp.Server{
			NoDefaultServerHeader: true,
			ReadTimeout:           5 * time.Second,
			Handler: func(c *fasthttp.RequestCtx) {
				n, ok := size(string(c.Path()))
				if !ok {
					c.Error(bad, fasthttp.StatusBadRequest)
					return
				}
				c.SetContentType("application/json")
				c.Response.SetBodyRaw(body(n))
			},
		}
		log.Fatal(srv.ListenAndServe(*addr))
	case "nethttp":
		srv := &http.Server{
			Addr:              *addr,
			ReadHeaderTimeout: 5 * time.Second,
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n, ok := size(r.URL.Path)
				if !ok {
					http.Error(w, bad, http.StatusBadRequest)
					return
				}
				w.Header()["Content-Type"] = []string{"application/json"}
				_, _ = w.Write(body(n))
			}),
		}
		log.Fatal(srv.ListenAndServe())
	default:
		log.Fatalf("-stack %q: want fasthttp or nethttp", *stack)
	}
}
