// Command ceiling serves a fixed body for every request: the figure issue 12 calls "what Go's
// net/http serves for a fixed 1 KB body on this machine kind". series.sh measures it between
// the API runs, so a series says how fast the host was while it ran (this machine's host moves
// it by a quarter from one hour to the next). `/` answers 1 KiB; `/size/N` answers N bytes
// (up to 4 MiB), so peerbench.sh can hold each route against a fixed answer of that route's
// own size (issue 21: "a fixed answer of the same size").
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
)

const maxSize = 4 << 20

func main() {
	addr := flag.String("listen", "127.0.0.1:18699", "listen address")
	flag.Parse()
	var bodies sync.Map // size → []byte: the answer is built once per size, as a cache hit is
	body := func(n int) []byte {
		if b, ok := bodies.Load(n); ok {
			return b.([]byte)
		}
		b, _ := bodies.LoadOrStore(n, bytes.Repeat([]byte("x"), n))
		return b.([]byte)
	}
	srv := &http.Server{
		Addr:              *addr,
		ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := 1024
			if s, ok := strings.CutPrefix(r.URL.Path, "/size/"); ok {
				v, err := strconv.Atoi(s)
				if err != nil || v < 0 || v > maxSize {
					http.Error(w, "size: want 0.."+strconv.Itoa(maxSize), http.StatusBadRequest)
					return
				}
				n = v
			}
			_, _ = w.Write(body(n))
		}),
	}
	log.Fatal(srv.ListenAndServe())
}
