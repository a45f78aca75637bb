// Command rollgate is the read-only data and bridging gateway for Cosmos rollups: an indexer
// API, a bridging router API and a local devnet, in one binary. See README.md.
package main

import (
	"os"

	"github.com/rollgate/rollgate/internal/cli"
)

// Set by -ldflags "-X main.version=... -X main.commit=..."; otherwise cli.StampedBuild reads
// them from the build information the toolchain embeds.
var (
	version = "dev"
	commit  = "unknown"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.StampedBuild(cli.Build{Version: version, Commit: commit})))
}
