package api

import "github.com/rollgate/rollgate/internal/httpapi"

// routes is the one routes table; /swagger/doc.json documents exactly the InSpec entries
// (Swagger, /metrics, 404s and 405s come from httpapi). Answers to POSTs depend on the body,
// so no cache may keep them.
func (s *server) routes() []httpapi.Route {
	return []httpapi.Route{
		{Pattern: "POST /v2/fungible/route", Handler: s.route, InSpec: true, NoStore: true},
		{Pattern: "POST /op-hook", Handler: s.opHook, InSpec: true, NoStore: true},
		{Pattern: "POST /v2/fungible/msgs", Handler: s.msgs, InSpec: true, NoStore: true},
		{Pattern: "POST /v2/fungible/msgs_direct", Handler: s.msgsDirect, InSpec: true, NoStore: true},
		{Pattern: "GET /v2/info/chains", Handler: s.chains, InSpec: true},
		{Pattern: "GET /v2/fungible/assets", Handler: s.assets, InSpec: true},
		{Pattern: "GET /v2/info/bridges", Handler: s.bridges, InSpec: true},
		{Pattern: "POST /v2/info/balances", Handler: s.balances, InSpec: true, NoStore: true},
		{Pattern: "POST /v2/fungible/assets_from_source", Handler: s.assetsFromSource, InSpec: true, NoStore: true},
		{Pattern: "GET /v2/fungible/venues", Handler: s.venues, InSpec: true},
		{Pattern: "POST /v2/fungible/recommend_assets", Handler: s.recommendAssets, InSpec: true, NoStore: true},
		{Pattern: "POST /v2/fungible/ibc_origin_assets", Handler: s.ibcOriginAssets, InSpec: true, NoStore: true},
		{Pattern: "POST /v2/fungible/assets_between_chains", Handler: s.assetsBetweenChainsPost, InSpec: true, NoStore: true},
		{Pattern: "GET /v2/fungible/assets_between_chains", Handler: s.assetsBetweenChainsGet, InSpec: true},
		{Pattern: "POST /nft", Handler: s.nft, InSpec: true, NoStore: true},
		// A status changes as the transfer progresses: never cached.
		{Pattern: "POST /v2/tx/track", Handler: s.txTrack, InSpec: true, NoStore: true},
		{Pattern: "POST /v2/tx/retry_track", Handler: s.txRetryTrack, InSpec: true, NoStore: true},
		{Pattern: "GET /v2/tx/status", Handler: s.txStatus, InSpec: true, NoStore: true},
		{Pattern: "GET /v2/tx/status/stream", Stream: s.txStatusStream, InSpec: true},
		{Pattern: "POST /v2/tx/submit", Handler: s.txSubmit, InSpec: true, NoStore: true},

		// Prices move every few seconds: the asset lists with them are not cached.
		{Pattern: "GET /initia/{chain_id}/assets", Handler: s.pricedAssets, InSpec: true, NoStore: true},
		{Pattern: "GET /prices", Handler: s.priceStatus, InSpec: true, NoStore: true},

		{Pattern: "GET /healthz", Handler: s.healthz, NoStore: true},
		{Pattern: "GET /readyz", Handler: s.readyz, NoStore: true},
	}
}
