// Command httpstack serves one fixed answer with a chosen HTTP stack, so that the gain a faster
// stack would give rollgate's API can be measured on the machine rollgate runs on (docs/performance.md,
// "The HTTP stack"): `-stack nethttp` is the standard library (what internal/httpapi uses), `-stack
// fasthttp` is valyala/fasthttp. The answer is the same bytes with the same headers rollgate's
// cached answers carry (Content-Type, Content-Length, ETag, Cache-Control, Vary), so the
// difference measured is the stack's alone. run.sh drives both with wrk, alternating.
//
// It is its own Go module so that the product's module never depends on the stack under test.
package main

import (
	"bytes"
	"flag"
	"log"
	"net/http"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
)

func main() {
	stack := flag.String("stack", "nethttp", "nethttp or fasthttp")
	addr := flag.String("listen", "127.0.0.1:18698", "listen address")
	size := flag.Int("size", 1024, "answer size in bytes")
	flag.Parse()
	body := bytes.Repeat([]byte("x"), *size)
	const etag = `"0123456789abcdef"`
	switch *stack {
	case "nethttp":
		srv := &http.Server{
			Addr:              *addr,
			ReadHeaderTimeout: 5 * time.Second,
			Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				h := w.Header()
				h["Content-Type"] = []string{"application/json"}
				h["Content-Length"] = []string{strconv.Itoa(len(body))}
				h["Etag"] = []string{etag}
				h["Cache-Control"] = []string{"public, max-age=1"}
				h["Vary"] = []string{"Origin"}
				_, _ = w.Write(body)
			}),
		}
		log.Fatal(srv.ListenAndServe())
	case "fasthttp":
		srv := &fasthttp.Server{
			ReadTimeout: 5 * time.Second,
			Handler: func(ctx *fasthttp.RequestCtx) {
				ctx.SetContentType("application/json")
				ctx.Response.Header.Set("ETag", etag)
				ctx.Response.Header.Set("Cache-Control", "public, max-age=1")
				ctx.Response.Header.Set("Vary", "Origin")
				ctx.SetBody(body)
			},
		}
		log.Fatal(srv.ListenAndServe(*addr))
	default:
		log.Fatalf("stack %q: want nethttp or fasthttp", *stack)
	}
}
