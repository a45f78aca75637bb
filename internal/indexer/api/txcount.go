package api

import (
	"net/http"
	"strconv"
)

// txCount answers kvindexer's GET /indexer/tx/v1/txs/count: {"count":"N"}, the uint64 as a
// string as the Cosmos gRPC-gateway renders it (QueryTxCountResponse in
// initia-labs/kvindexer@9c8b124:proto/indexer/tx/v1/query.proto). Celatone waits for this route to
// replace its count_total=true&limit=1 request (alleslabs/celatone-frontend@99feb85:
// src/lib/services/tx/sequencer.ts, getTxsCountSequencer). The count is the store's tx
// counter: exact at the indexed height, and one row read rather than a count over the txs.
func (s *server) txCount(r *http.Request) (any, error) {
	n, err := s.store.TxCount(r.Context())
	if err != nil {
		return nil, err
	}
	return struct {
		Count string `json:"count"`
	}{strconv.FormatInt(n, 10)}, nil
}
