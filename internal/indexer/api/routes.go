package api

// route is one entry of the routes table.
type route struct {
	pattern string // net/http ServeMux pattern; also the metrics label
	h       handlerFunc
	// inSpec marks the API routes that openapi.json must describe (the swagger test checks
	// both directions); operational routes are left out of the document.
	inSpec      bool
	contentType string // default application/json
	noCache     bool
}

// routes is the whole API surface. NFT, rich-list and EVM routes belong to later issues.
func (s *server) routes() []route {
	return []route{
		{pattern: "GET /status", h: s.status, inSpec: true},
		{pattern: "GET /indexer/block/v1/blocks", h: s.blocks, inSpec: true},
		{pattern: "GET /indexer/block/v1/blocks/{height}", h: s.block, inSpec: true},
		{pattern: "GET /indexer/block/v1/avg_blocktime", h: s.avgBlockTime, inSpec: true},
		{pattern: "GET /indexer/tx/v1/txs", h: s.txs, inSpec: true},
		{pattern: "GET /indexer/tx/v1/txs/by_account/{account}", h: s.txsByAccount, inSpec: true},
		{pattern: "GET /indexer/tx/v1/txs/by_height/{height}", h: s.txsByHeight, inSpec: true},
		{pattern: "GET /indexer/tx/v1/txs/{tx_hash}", h: s.tx, inSpec: true},

		{pattern: "GET /swagger/doc.json", h: s.swaggerDoc},
		{pattern: "GET /healthz", h: s.healthz, noCache: true},
	}
}
