package cli

import (
	"fmt"
	"log/slog"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/profile"
)

// etherscanFlags configure the Etherscan-compatible /api of EVM chains.
type etherscanFlags struct {
	ABIDir      string // contract ABIs by address (api.LoadABIs)
	NativeDenom string // rich-list denom of the coin eth_getBalance reports
}

func (e *etherscanFlags) register(f *flags) {
	f.String(&e.ABIDir, "etherscan-abi-dir", "", "directory of contract ABIs for /api getabi and getsourcecode, one <0x address>.json each (an ABI array or a Hardhat/Foundry artifact); empty: every contract is unverified", "ROLLGATE_ETHERSCAN_ABI_DIR")
	f.String(&e.NativeDenom, "etherscan-native-denom", "", "rich-list denom (or alias, e.g. the fee denom) of the coin /api balance reports; empty: balances from --json-rpc-url", "ROLLGATE_ETHERSCAN_NATIVE_DENOM")
}

// apiProfileOptions are profileOptions with what the API's Etherscan answers read: the chain's
// JSON-RPC (when given, in every mode), the operator's ABIs and the native denom.
func (c *indexerConfig) apiProfileOptions(log *slog.Logger) (profile.Options, error) {
	o := c.profileOptions()
	if !c.profile.JSONRPC() {
		return o, nil
	}
	if c.JSONRPC != "" {
		rpc, err := evmrpc.New(c.JSONRPC, httpx.WithLogger(log), httpx.WithConcurrency(max(c.MaxConns, 1)))
		if err != nil {
			return o, fmt.Errorf("json-rpc url: %w", err)
		}
		o.EVMRPC = rpc
	}
	abis, err := api.LoadABIs(c.Etherscan.ABIDir)
	if err != nil {
		return o, usagef("--etherscan-abi-dir (ROLLGATE_ETHERSCAN_ABI_DIR): %v", err)
	}
	o.ABIs, o.NativeDenom = abis, c.Etherscan.NativeDenom
	return o, nil
}
