package cli

import (
	"fmt"
	"log/slog"
	"strconv"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
)

// validateEVM checks the EVM settings as the peer does: JSON-RPC is required to ingest an EVM
// chain, and INTERNAL_TX defaults to true there and may not be true elsewhere.
func (c *indexerConfig) validateEVM() error {
	evm := c.Ingest.VMType == "evm"
	c.internalTx = evm
	if c.InternalTx != "" {
		v, err := strconv.ParseBool(c.InternalTx)
		if err != nil {
			return usagef("--internal-tx (INTERNAL_TX) must be true or false, not %q", c.InternalTx)
		}
		if v && !evm {
			return usagef("--internal-tx (INTERNAL_TX) is for EVM chains only")
		}
		c.internalTx = v
	}
	if evm && c.Mode != "api" && c.JSONRPC == "" {
		return usagef("--json-rpc-url (JSON_RPC_URL) is required to ingest an EVM chain")
	}
	return nil
}

// startEVMIngest gives an EVM chain's source its JSON-RPC side (receipts with every block)
// and starts the internal-tx follower when internal txs are on; it returns the follower's
// readiness (nil when there is none).
func startEVMIngest(g *group, cfg indexerConfig, src *ingest.ClientSource, db *store.DB, log *slog.Logger, opts []httpx.Option) (func() error, error) {
	if cfg.Ingest.VMType != "evm" {
		return nil, nil
	}
	rpc, err := evmrpc.New(cfg.JSONRPC, opts...)
	if err != nil {
		return nil, fmt.Errorf("json-rpc url: %w", err)
	}
	es := ingest.NewEVMSource(rpc)
	src.WithEVM(es)
	if !cfg.internalTx {
		return nil, nil
	}
	f := ingest.NewInternalFollower(ingest.InternalConfig{AccountPrefix: cfg.Ingest.AccountPrefix}, es, db, log.With("component", "internal-txs"))
	g.Go(f.Run)
	maxLag := cfg.Ingest.ReadyMaxLag
	if maxLag <= 0 {
		maxLag = 20
	}
	return func() error { return f.Ready(maxLag) }, nil
}
