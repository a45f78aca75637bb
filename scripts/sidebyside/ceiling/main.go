// Command ceiling serves a fixed 1 KiB body for every request: the figure issue 12 calls "what
// Go's net/http serves for a fixed 1 KB body on this machine kind". series.sh measures it
// between the API runs, so a series says how fast the host was while it ran (this machine's
// host moves it by a quarter from one hour to the next).
package main

import (
	"bytes"
	"flag"
	"log"
	"net/http"
	"time"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:18699", "listen address")
	flag.Parse()
	body := bytes.Repeat([]byte("x"), 1024)
	srv := &http.Server{
		Addr:              *addr,
		ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write(body)
		}),
	}
	log.Fatal(srv.ListenAndServe())
}
