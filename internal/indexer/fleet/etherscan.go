package fleet

import (
	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/indexer/profile"
)

// apiOptions are the chain's profile options for its API: profileOptions plus the chain's
// JSON-RPC for the Etherscan-compatible /api of EVM chains (tx bodies, token metadata,
// balances), when the spec gives one.
func (r *chainRun) apiOptions() profile.Options {
	o := r.profileOptions()
	if r.spec.JSONRPC == "" {
		return o
	}
	rpc, err := evmrpc.New(r.spec.JSONRPC, httpx.WithLogger(r.log))
	if err != nil {
		// The spec's URLs were validated when the fleet started; an unparsable one leaves
		// /api answering that no JSON-RPC is configured rather than failing the chain.
		r.log.Warn("etherscan api: json-rpc url", "err", err)
		return o
	}
	o.EVMRPC = rpc
	return o
}
