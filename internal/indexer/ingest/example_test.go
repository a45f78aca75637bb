package ingest_test

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
)

// Example shows the wiring `rollgate indexer` does: rollytics' environment variables mapped
// onto Config, the chain clients, the extensions the VM's profile runs, a store, and Run
// until interrupted.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logger := slog.Default()
	reg := prometheus.NewRegistry()

	start, _ := strconv.ParseInt(os.Getenv("START_HEIGHT"), 10, 64)
	cfg := ingest.Config{
		ChainID:       os.Getenv("CHAIN_ID"),
		VMType:        os.Getenv("VM_TYPE"),
		AccountPrefix: os.Getenv("ACCOUNT_ADDRESS_PREFIX"),
		StartHeight:   start,
	}
	src, err := ingest.DialSource(os.Getenv("RPC_URL"), os.Getenv("REST_URL"), reg, httpx.WithLogger(logger))
	if err != nil {
		logger.Error("chain clients", "err", err)
		return
	}
	prof, err := profile.Parse(cfg.VMType)
	if err != nil {
		logger.Error("VM_TYPE", "err", err)
		return
	}
	if prof.JSONRPC() {
		rpc, err := evmrpc.New(os.Getenv("JSON_RPC_URL"))
		if err != nil {
			logger.Error("JSON_RPC_URL", "err", err)
			return
		}
		src.WithEVM(ingest.NewEVMSource(rpc))
	}
	cfg.Extensions = prof.Extensions(profile.Options{RichList: true, InternalTxs: prof.Has("internal-txs")})
	db, err := store.Open(ctx, "sqlite:rollgate.db", logger)
	if err != nil {
		logger.Error("store", "err", err)
		return
	}
	defer db.Close()
	p, err := ingest.New(cfg, src, db, logger, reg)
	if err != nil {
		logger.Error("pipeline", "err", err)
		return
	}
	if err := p.Run(ctx); err != nil {
		logger.Error("ingestion", "err", err)
	}
}
