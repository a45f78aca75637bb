package cli

import (
	"fmt"
	"strconv"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
)

// validateEVM checks the EVM settings as rollytics does: JSON-RPC is required to ingest a chain
// whose profile reads it, and INTERNAL_TX defaults to true where the profile has internal txs
// and may not be true elsewhere.
func (c *indexerConfig) validateEVM() error {
	internal := c.profile.Has("internal-txs")
	c.internalTx = internal
	if c.InternalTx != "" {
		v, err := strconv.ParseBool(c.InternalTx)
		if err != nil {
			return usagef("--internal-tx (INTERNAL_TX) must be true or false, not %q", c.InternalTx)
		}
		if v && !internal {
			return usagef("--internal-tx (INTERNAL_TX) is for EVM chains only")
		}
		c.internalTx = v
	}
	if c.profile.JSONRPC() && c.Mode != "api" && c.JSONRPC == "" {
		return usagef("--json-rpc-url (JSON_RPC_URL) is required to ingest an EVM chain")
	}
	return nil
}

// profileOptions are the deployment's switches over its VM profile.
func (c *indexerConfig) profileOptions() profile.Options {
	return profile.Options{RichList: c.Ingest.RichList, InternalTxs: c.internalTx}
}

// dialEVM gives the source the chain's Ethereum JSON-RPC when the profile's extensions read it
// (receipts with every block, traces for internal txs).
func dialEVM(cfg indexerConfig, src *ingest.ClientSource, opts []httpx.Option) error {
	if !cfg.profile.JSONRPC() {
		return nil
	}
	rpc, err := evmrpc.New(cfg.JSONRPC, opts...)
	if err != nil {
		return fmt.Errorf("json-rpc url: %w", err)
	}
	src.WithEVM(ingest.NewEVMSource(rpc))
	return nil
}
