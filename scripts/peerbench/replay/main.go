// Command replay serves a captured chain (testdata/fixtures/*.tar.zst or its directory) on one
// loopback address, as `rollgate bench ingest --source busy` serves it to its own pipeline:
// CometBFT RPC, Cosmos REST and Ethereum JSON-RPC on one URL, the chain's head held at the
// last captured block. peerbench.sh points both indexers at it, so both read the same bytes
// from the same kind of server.
package main

import (
	"errors"
	"flag"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/capture"
	"github.com/rollgate/rollgate/internal/chain/replay"
)

func main() {
	fixture := flag.String("capture", "testdata/fixtures/minievm-busy.tar.zst", "captured chain: directory or .tar.zst")
	addr := flag.String("listen", "127.0.0.1:18700", "listen address")
	flag.Parse()
	dir, err := capture.Dir(*fixture)
	if err != nil {
		log.Fatal(err)
	}
	first, err := replay.New(dir)
	if err != nil {
		log.Fatal(err)
	}
	top := first.CapturedMaxHeight()
	// The captured /status may predate the last captured blocks; an ERC-721 name() is answered
	// at whichever height an indexer first asks it (the capture holds it at one height only).
	srv, err := replay.New(dir, replay.MaxHeight(func() int64 { return top }), replay.CacheSize(4096),
		replay.HeightFallback(peerFacts))
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("replaying %s (top height %d) on http://%s", dir, top, *addr)
	hs := &http.Server{Addr: *addr, Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	if err := hs.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// peerFacts is replay.NFTFacts plus the account and balance lists rollytics' rich list
// bootstraps from: it asks them at the height it starts at, and the capture holds them at the
// heights rollgate's capture script asked. Without a stand-in rollytics' indexer panics on the
// missing answer (seen 2026-11-26), so no same-run table could be taken. Both indexers read
// the same server, so the stand-in is the same for both.
func peerFacts(method, path string) bool {
	if replay.NFTFacts(method, path) {
		return true
	}
	return method == http.MethodGet && (strings.HasPrefix(path, "/cosmos/auth/v1beta1/accounts") ||
		strings.HasPrefix(path, "/cosmos/bank/v1beta1/"))
}
