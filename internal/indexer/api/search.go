package api

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// Search answers what an explorer's search box needs in one request: the string is classified
// once (what Celatone's searchService.ts guesses with a lookup per kind: a tx hash, an EVM tx
// hash, a height, an address in bech32 or 0x form, an NFT collection by address or name
// prefix, a token id within a collection, a denom) and every guess is one point read or one
// index range. The limits are documented in docs/indexer-api.md.
const (
	searchMaxQuery     = 256 // bytes of q
	searchDefaultLimit = 10
	searchMaxLimit     = 50
	// searchChainTimeout bounds the one chain call search makes (eth_getCode of an EVM
	// address): a slow chain costs the contract hit, not the answer.
	searchChainTimeout = 500 * time.Millisecond
)

// searchHit is one typed result with the route that returns it (relative to the chain's API;
// under /all/ prefixed with the chain's base).
type searchHit struct {
	Type    string `json:"type"`
	ChainID string `json:"chain_id"`
	ID      string `json:"id"`
	Label   string `json:"label"`
	Height  *int64 `json:"height"`
	Route   string `json:"route"`
	rank    int
}

// The hit types, in rank order: an exact identifier before a name.
const (
	hitTx            = "tx"
	hitEVMTx         = "evm_tx"
	hitBlock         = "block"
	hitNFT           = "nft"
	hitCollection    = "nft_collection"
	hitContract      = "contract"
	hitAccount       = "account"
	hitDenom         = "denom"
	hitCollectionPfx = "nft_collection_name"
)

var hitRank = map[string]int{hitTx: 0, hitEVMTx: 1, hitBlock: 2, hitNFT: 3, hitCollection: 4, hitContract: 5, hitAccount: 6, hitDenom: 7, hitCollectionPfx: 8}

// searchSource is one chain as search reads it.
type searchSource struct {
	chainID string
	prefix  string // bech32 account prefix
	base    string // "" on a chain's own API, "/{chain_id}" under the fleet
	reader  store.Reader
	f       Features
}

// searchQuery is the parsed request.
type searchQuery struct {
	q     string
	limit int
}

func parseSearch(r *http.Request) (searchQuery, error) {
	q := query(r.URL.RawQuery)
	s := strings.TrimSpace(q.Get("q"))
	if s == "" {
		return searchQuery{}, apierr.BadRequest("q is required")
	}
	if len(s) > searchMaxQuery {
		return searchQuery{}, apierr.BadRequest("q is longer than %d bytes", searchMaxQuery)
	}
	out := searchQuery{q: s, limit: searchDefaultLimit}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > searchMaxLimit {
			return searchQuery{}, apierr.BadRequest("[INVALID_VALUE] invalid value for limit: %s (must be an integer from 1 to %d)", clip(v), searchMaxLimit)
		}
		out.limit = n
	}
	return out, nil
}

// search: GET /indexer/search/v1?q=…
func (s *server) search(r *http.Request) (any, error) {
	sq, err := parseSearch(r)
	if err != nil {
		return nil, err
	}
	src := searchSource{chainID: s.cfg.ChainID, prefix: s.cfg.AccountPrefix, reader: s.store, f: s.cfg.Features}
	hits, err := src.search(r.Context(), sq)
	if err != nil {
		return nil, err
	}
	return searchAnswer(sq, hits), nil
}

func searchAnswer(sq searchQuery, hits []searchHit) map[string]any {
	sortHits(hits)
	if len(hits) > sq.limit {
		hits = hits[:sq.limit]
	}
	if hits == nil {
		hits = []searchHit{}
	}
	return map[string]any{"query": sq.q, "results": hits}
}

// sortHits orders by type rank, then chain id, keeping each source's own order within.
func sortHits(h []searchHit) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && (h[j].rank < h[j-1].rank || h[j].rank == h[j-1].rank && h[j].ChainID < h[j-1].ChainID); j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

func (src searchSource) hit(typ, id, label string, height int64, route string) searchHit {
	h := searchHit{Type: typ, ChainID: src.chainID, ID: id, Label: label, Route: src.base + route, rank: hitRank[typ]}
	if height > 0 {
		h.Height = &height
	}
	return h
}

// search runs every guess the string allows on one chain. A guess that finds nothing adds no
// hit; only a store failure is an error.
func (src searchSource) search(ctx context.Context, sq searchQuery) ([]searchHit, error) {
	q := sq.q
	var out []searchHit
	add := func(hs []searchHit, err error) error {
		out = append(out, hs...)
		return err
	}
	if b, ok := hexBytes(q); ok && len(b) == 32 {
		if err := add(src.txByHash(ctx, b)); err != nil {
			return nil, err
		}
	}
	if isDecimal(q) {
		if err := add(src.block(ctx, q)); err != nil {
			return nil, err
		}
	}
	if addr, ok := searchAddress(src.prefix, q); ok {
		if err := add(src.address(ctx, addr)); err != nil {
			return nil, err
		}
	}
	if coll, token, ok := splitToken(q); ok {
		if addr, ok := searchAddress(src.prefix, coll); ok {
			if err := add(src.token(ctx, addr, token)); err != nil {
				return nil, err
			}
		}
	}
	if src.f.RichList != nil && validDenom(q) {
		if err := add(src.denom(ctx, q)); err != nil {
			return nil, err
		}
	}
	if err := add(src.collectionsByName(ctx, q, sq.limit)); err != nil {
		return nil, err
	}
	return out, nil
}

func (src searchSource) txByHash(ctx context.Context, b []byte) ([]searchHit, error) {
	var out []searchHit
	id := strings.ToUpper(hex.EncodeToString(b))
	t, err := src.reader.Tx(ctx, b)
	switch {
	case err == nil:
		out = append(out, src.hit(hitTx, id, "tx "+id, t.Height, "/indexer/tx/v1/txs/"+id))
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	if src.f.EVMTxs != nil {
		t, err := src.f.EVMTxs.EVMTx(ctx, b)
		switch {
		case err == nil:
			h := "0x" + hex.EncodeToString(b)
			out = append(out, src.hit(hitEVMTx, h, "evm tx "+h, t.Height, "/indexer/tx/v1/evm-txs/"+h))
		case !errors.Is(err, store.ErrNotFound):
			return nil, err
		}
	}
	return out, nil
}

func (src searchSource) block(ctx context.Context, q string) ([]searchHit, error) {
	h, err := strconv.ParseInt(q, 10, 64)
	if err != nil || h < 1 {
		return nil, nil
	}
	b, err := src.reader.Block(ctx, h)
	if errors.Is(err, store.ErrNotFound) || store.IsPruned(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []searchHit{src.hit(hitBlock, q, "block "+q, b.Height, "/indexer/block/v1/blocks/"+q)}, nil
}

// address finds a collection at the address and the account's activity.
func (src searchSource) address(ctx context.Context, addr []byte) ([]searchHit, error) {
	var out []searchHit
	hx := address.Hex(addr)
	c, err := src.reader.Collection(ctx, addr)
	switch {
	case err == nil:
		out = append(out, src.hit(hitCollection, hx, c.Name, c.Height, "/indexer/nft/v1/collections/"+hx))
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	// Move names an NFT by its object's address (what Celatone's search looks up on Move).
	if coll, id, ok, err := src.reader.TokenByObject(ctx, addr); err != nil {
		return nil, err
	} else if ok {
		hs, err := src.token(ctx, coll, id)
		if err != nil {
			return nil, err
		}
		out = append(out, hs...)
	}
	if h, err := src.contract(ctx, addr); err != nil {
		return nil, err
	} else if h != nil {
		out = append(out, *h)
	}
	txs, evmTxs, err := src.reader.AccountActivity(ctx, addr)
	if err != nil {
		return nil, err
	}
	if txs > 0 || evmTxs > 0 {
		id, err := address.Bech32(src.prefix, addr)
		if err != nil {
			id = hx
		}
		label := hx + " (" + strconv.FormatInt(txs, 10) + " txs"
		if evmTxs > 0 {
			label += ", " + strconv.FormatInt(evmTxs, 10) + " evm txs"
		}
		out = append(out, src.hit(hitAccount, id, label+")", 0, "/indexer/tx/v1/txs/by_account/"+id))
	}
	return out, nil
}

// contract finds EVM contract code at a 20-byte address through the chain's JSON-RPC (the
// Etherscan part's, when configured), at the indexed height; without it, or when the chain
// does not answer, no contract hit (the account hit still names the address).
func (src searchSource) contract(ctx context.Context, addr []byte) (*searchHit, error) {
	es := src.f.Etherscan
	if es == nil || es.RPC == nil || len(addr) != 20 {
		return nil, nil
	}
	h, err := src.reader.IndexedHeight(ctx)
	if err != nil {
		return nil, err
	}
	hx := address.Hex(addr)
	cctx, cancel := context.WithTimeout(ctx, searchChainTimeout)
	defer cancel()
	var code string
	if err := es.RPC.Call(cctx, "eth_getCode", []any{hx, evmrpc.BlockTag(h)}, &code); err != nil || code == "" || code == "0x" {
		return nil, nil
	}
	name := hx
	if abi, ok := es.ABIs[hx]; ok && abi.Name != "" {
		name = abi.Name
	}
	hit := src.hit(hitContract, hx, name, 0, "/indexer/tx/v1/evm-txs/by_account/"+hx)
	return &hit, nil
}

func (src searchSource) token(ctx context.Context, coll []byte, tokenID string) ([]searchHit, error) {
	page, err := src.reader.Tokens(ctx, store.TokenFilter{Collection: coll, TokenID: tokenID, TokenIDSet: true}, store.Page{Limit: 1}, nil)
	if err != nil || len(page.Tokens) == 0 {
		return nil, err
	}
	t := page.Tokens[0]
	hx := address.Hex(coll)
	id := hx + "/" + t.TokenID
	return []searchHit{src.hit(hitNFT, id, t.CollectionName+" #"+t.TokenID, t.Height,
		"/indexer/nft/v1/tokens/by_collection/"+hx+"?token_id="+url.QueryEscape(t.TokenID))}, nil
}

func (src searchSource) denom(ctx context.Context, q string) ([]searchHit, error) {
	stored, holders, found, err := src.reader.RichListDenom(ctx, q)
	if err != nil || !found {
		return nil, err
	}
	return []searchHit{src.hit(hitDenom, stored, stored+" ("+strconv.FormatInt(holders, 10)+" holders)", 0,
		"/indexer/richlist/v1/"+url.PathEscape(q))}, nil
}

func (src searchSource) collectionsByName(ctx context.Context, q string, limit int) ([]searchHit, error) {
	cs, err := src.reader.CollectionsByNamePrefix(ctx, q, limit)
	if err != nil {
		return nil, err
	}
	out := make([]searchHit, 0, len(cs))
	for _, c := range cs {
		hx := address.Hex(c.Addr)
		out = append(out, src.hit(hitCollectionPfx, hx, c.Name, c.Height, "/indexer/nft/v1/collections/"+hx))
	}
	return out, nil
}

// hexBytes decodes hex with or without 0x.
func hexBytes(s string) ([]byte, bool) {
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if h == "" || len(h)%2 == 1 {
		return nil, false
	}
	b, err := hex.DecodeString(h)
	return b, err == nil
}

func isDecimal(s string) bool {
	if s == "" || len(s) > 19 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// searchAddress reads an address only in the forms a user pastes: 0x with 20 or 32 bytes, or
// bech32 with the chain's prefix and a valid checksum. Bare or short hex (a height, a tx hash)
// is not one, unlike the by_account routes' lenient parsing.
func searchAddress(prefix, s string) ([]byte, bool) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		if len(s) != 42 && len(s) != 66 {
			return nil, false
		}
		b, err := hex.DecodeString(s[2:])
		return b, err == nil
	}
	b, err := address.FromBech32(prefix, strings.ToLower(s))
	return b, err == nil && (len(b) == 20 || len(b) == 32)
}

// splitToken reads "collection/token_id" or "collection token_id" (the token id within a
// collection, as explorers' NFT pages name it).
func splitToken(s string) (coll, token string, ok bool) {
	i := strings.IndexAny(s, "/ #")
	if i <= 0 || i == len(s)-1 {
		return "", "", false
	}
	return s[:i], strings.TrimLeft(s[i+1:], "/ #"), true
}

// validDenom is the Cosmos SDK's denom syntax: 3 to 128 characters, a letter first, then
// letters, digits and /:._- (so a name with spaces is never looked up as one).
func validDenom(s string) bool {
	if len(s) < 3 || len(s) > 128 {
		return false
	}
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter {
			return false
		}
		if !letter && !(c >= '0' && c <= '9') && !strings.ContainsRune("/:._-", c) {
			return false
		}
	}
	return true
}

// searchRoutes is the search route, appended to routes.go's table.
func (s *server) searchRoutes() []httpapi.Route {
	return []httpapi.Route{{Pattern: "GET /indexer/search/v1", Handler: s.search, InSpec: true, Cache: true}}
}

// searchAll: GET /all/indexer/search/v1?q=…: the single-chain search on every ready chain,
// merged into one ranked list, each route under its chain's base.
func (s *fleetServer) searchAll(r *http.Request) (any, error) {
	sq, err := parseSearch(r)
	if err != nil {
		return nil, err
	}
	var all []searchHit
	for _, c := range servingChains(s.cfg.Chains()) {
		src := searchSource{chainID: c.ID, prefix: c.AccountPrefix, base: c.Base, reader: c.Reader, f: c.Features}
		hits, err := src.search(r.Context(), sq)
		if err != nil {
			return nil, err
		}
		all = append(all, hits...)
	}
	return searchAnswer(sq, all), nil
}
