package api

import "github.com/rollgate/rollgate/internal/httpapi"

// routes is the whole API surface (Swagger, /metrics, 404s and 405s come from httpapi). A
// route marked Cache answers as a function of the request and the indexed height only.
// The NFT routes are in nft.go, the EVM routes in evm.go, the rich list in richlist.go,
// the EVM-tx and NFT streams in stream_evmnft.go, the transfer lists in transfers.go, search in
// search.go, the Etherscan-compatible /api in etherscan*.go.
func (s *server) routes() []httpapi.Route {
	return append([]httpapi.Route{
		// /status is not cached: internal_tx_height moves apart from the indexed height.
		{Pattern: "GET /status", Handler: s.status, InSpec: true},
		{Pattern: "GET /indexer/block/v1/blocks", Handler: s.blocks, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/block/v1/blocks/stream", Stream: s.blockStream, InSpec: true},
		{Pattern: "GET /indexer/block/v1/blocks/{height}", Handler: s.block, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/block/v1/avg_blocktime", Handler: s.avgBlockTime, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/tx/v1/txs", Handler: s.txs, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/tx/v1/txs/count", Handler: s.txCount, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/tx/v1/txs/by_account/{account}", Handler: s.txsByAccount, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/tx/v1/txs/by_height/{height}", Handler: s.txsByHeight, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/tx/v1/txs/stream", Stream: s.txStream, InSpec: true},
		{Pattern: "GET /indexer/tx/v1/txs/{tx_hash}", Handler: s.tx, InSpec: true, Cache: true},

		// The rich list changes in the blocks' own transactions.
		{Pattern: "GET /indexer/richlist/v1/{denom}", Handler: s.richList, InSpec: true, Cache: true},

		{Pattern: "GET /healthz", Handler: s.healthz, NoStore: true},
		{Pattern: "GET /readyz", Handler: s.readyz, NoStore: true},
	}, append(append(append(append(s.nftRoutes(), s.evmRoutes()...), s.transferRoutes()...), s.liveRoutes()...), append(s.searchRoutes(), s.etherscanRoutes()...)...)...)
}
