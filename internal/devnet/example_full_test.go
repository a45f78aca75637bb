package devnet_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"

	"github.com/rollgate/rollgate/internal/devnet"
)

// Example is how `rollgate devnet` / `rollgate up` start the full network: timers on, the
// relayer stepping on its own, endpoints.json and registry/ under the data dir.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := devnet.DefaultConfig()
	cfg.DataDir = "/tmp/rollgate-devnet" // endpoints.json + registry/ (router: registry.Load(DataDir+"/registry"))
	cfg.PortBase = 26650                 // chain i: 26650+10i rpc, +1 rest, +2 json-rpc, +3 executor API
	n, err := devnet.Start(ctx, cfg, slog.Default())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer n.Close()
	for id, e := range n.Endpoints() {
		fmt.Println(id, e.RPC, e.REST, e.JSONRPC, n.ExecutorURL(id))
	}
	<-ctx.Done()
}
