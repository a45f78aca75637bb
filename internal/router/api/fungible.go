package api

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// The discovery endpoints only the Skip client and widget call (real-clients.md §2.10 in the
// design notes; skip-mev/skip-go@fa6095e:packages/client/src/api/*.ts): swap venues, asset
// recommendations, origin assets and the assets between two chains. Each is computed from the
// registry and the route graph; none is a canned answer.

// Reasons of these endpoints.
const (
	ReasonTooManyItems  = "TOO_MANY_ITEMS"
	ReasonInvalidReason = "INVALID_REASON"
)

// maxBatch bounds the entries of one recommend_assets or ibc_origin_assets request: each
// entry costs a graph search, and a wallet asks for a handful.
const maxBatch = 100

// Recommendation reasons (Skip's Reason enum). MOST_LIQUID is never given: rollgate knows no
// liquidity.
const (
	reasonUnknown    = "UNKNOWN"
	reasonMostLiquid = "MOST_LIQUID"
	reasonBaseToken  = "BASE_TOKEN"
	reasonDirect     = "DIRECT"
)

// venues answers GET /v2/fungible/venues, which the Skip widget fetches on load
// (skip-mev/skip-go@fa6095e:packages/widget/src/state/skipClient.ts, venues; the client reads
// response.venues, packages/client/src/api/getVenues.ts). rollgate builds no swaps, so it has
// no venue to name: the list is empty, and stays so whatever only_testnets says.
func (s *server) venues(r *http.Request) (any, error) {
	if _, err := queryBool(r, "only_testnets"); err != nil {
		return nil, err
	}
	return map[string][]route.SwapVenue{"venues": {}}, nil
}

// RecommendAssetsRequest is the /v2/fungible/recommend_assets body (Skip's
// AssetRecommendationsRequest).
type RecommendAssetsRequest struct {
	Requests []RecommendationRequest `json:"requests"`
}

// RecommendationRequest is one entry: the source asset and the chain to recommend on.
type RecommendationRequest struct {
	SourceAssetDenom   string `json:"source_asset_denom"`
	SourceAssetChainID string `json:"source_asset_chain_id"`
	DestChainID        string `json:"dest_chain_id"`
	Reason             string `json:"reason"`
}

// AssetRecommendation is one recommended asset and why.
type AssetRecommendation struct {
	Asset  route.Asset `json:"asset"`
	Reason string      `json:"reason"`
}

// RecommendationEntry answers one request entry: the recommendations, or why there are none.
type RecommendationEntry struct {
	Recommendations []AssetRecommendation `json:"recommendations"`
	Error           *wire.ErrorInfo       `json:"error,omitempty"`
}

// candidate is an asset on the destination chain the source asset can be moved to.
type candidate struct {
	asset *registry.Asset
	txs   int // transactions the route needs (0: the source asset itself)
	ops   int // operations of the route
}

// recommendAssets answers POST /v2/fungible/recommend_assets (Skip client: assetRecommendations,
// skip-mev/skip-go@fa6095e:packages/client/src/api/postRecommendAssets.ts). For each entry it
// recommends the form of the source asset on dest_chain_id that a route reaches: the origin
// token itself when the destination is its home chain (BASE_TOKEN), otherwise those reached
// with the fewest transactions, then operations (DIRECT; all of them when several tie). An
// entry with nothing reachable answers an empty list and an error; a malformed entry fails
// the request.
func (s *server) recommendAssets(r *http.Request) (any, error) {
	var req RecommendAssetsRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	switch {
	case len(req.Requests) == 0:
		return nil, missing("requests")
	case len(req.Requests) > maxBatch:
		return nil, tooMany("requests", len(req.Requests))
	}
	g := s.current()
	out := make([]RecommendationEntry, len(req.Requests))
	for i, q := range req.Requests {
		src, srcAsset, e := g.Lookup(field("requests", i, "source_asset_chain_id"), q.SourceAssetChainID,
			field("requests", i, "source_asset_denom"), q.SourceAssetDenom)
		if e != nil {
			return nil, e
		}
		if q.DestChainID == "" {
			return nil, missing(field("requests", i, "dest_chain_id"))
		}
		dst := g.Registry().Chain(q.DestChainID)
		if dst == nil {
			return nil, apierr.NotFoundf("unknown chain %q in %s", q.DestChainID, field("requests", i, "dest_chain_id")).WithDetails(route.ReasonUnknownChain)
		}
		switch q.Reason {
		case "", reasonUnknown, reasonBaseToken, reasonDirect, reasonMostLiquid:
		default:
			return nil, apierr.BadRequest("%s: unknown reason %q (UNKNOWN, MOST_LIQUID, BASE_TOKEN or DIRECT)", field("requests", i, "reason"), q.Reason).
				WithDetails(ReasonInvalidReason)
		}
		cands, err := candidates(g, src, srcAsset, dst)
		if err != nil {
			return nil, err
		}
		out[i] = recommend(g.Registry(), cands, q.Reason, dst)
	}
	return map[string]any{"recommendation_entries": out}, nil
}

// recommend picks the entry's answer from the candidates (ordered by fewest transactions, then
// operations, then registry order). A reason in the request selects: BASE_TOKEN only the base
// token, DIRECT only the most direct, MOST_LIQUID nothing (no liquidity data); none (or
// UNKNOWN) the base token if reachable, else the most direct.
func recommend(reg *registry.Registry, cands []candidate, want string, dst *registry.Chain) RecommendationEntry {
	entry := RecommendationEntry{Recommendations: []AssetRecommendation{}}
	if want == reasonMostLiquid {
		entry.Error = &wire.ErrorInfo{Message: "no recommendation found: rollgate has no liquidity data (ask for DIRECT or BASE_TOKEN)"}
		return entry
	}
	for _, c := range cands {
		if want == reasonDirect {
			break // asked for the most direct ones, whatever the base token is
		}
		// The token itself, at home: it is what every other form of it redeems to.
		if o := originOf(reg, c.asset); o.ChainID == c.asset.ChainID && o.Denom == c.asset.Denom {
			entry.Recommendations = append(entry.Recommendations, AssetRecommendation{Asset: route.AssetOf(c.asset), Reason: reasonBaseToken})
			return entry
		}
	}
	if want == reasonBaseToken || len(cands) == 0 {
		entry.Error = &wire.ErrorInfo{Message: "no recommendation found on " + dst.ID}
		return entry
	}
	// Every candidate as direct as the best: the registry's order says nothing between them.
	for _, c := range cands {
		if c.txs != cands[0].txs || c.ops != cands[0].ops {
			break
		}
		entry.Recommendations = append(entry.Recommendations, AssetRecommendation{Asset: route.AssetOf(c.asset), Reason: reasonDirect})
	}
	return entry
}

// candidates lists the assets on dst the source asset reaches (in any number of transactions),
// the source itself when it is on dst, sorted by fewest transactions, then operations.
func candidates(g *route.Graph, src *registry.Chain, a *registry.Asset, dst *registry.Chain) ([]candidate, error) {
	var out []candidate
	if src.ID == dst.ID {
		out = append(out, candidate{asset: a})
	}
	reach, err := g.Reachable(src.ID, a.Denom, true)
	if err != nil {
		return nil, err
	}
	for _, b := range reach {
		if b.ChainID != dst.ID {
			continue
		}
		if rt := routeBetween(g, a, b, true); rt != nil {
			out = append(out, candidate{asset: b, txs: rt.TxsRequired, ops: len(rt.Operations)})
		}
	}
	slices.SortStableFunc(out, func(x, y candidate) int {
		if x.txs != y.txs {
			return x.txs - y.txs
		}
		return x.ops - y.ops
	})
	return out, nil
}

// probeAmounts are the amounts a route between two assets is asked for when the caller gives
// none: a route's shape does not depend on the amount, but a fee or an 18-decimal conversion
// can refuse a small one.
var probeAmounts = []string{"1000000", "1000000000000000000"}

// routeBetween is the route the graph offers from a to b, nil if none: what /v2/fungible/route
// answers, also as an OP withdrawal (the only way some rollup tokens leave for the L1).
func routeBetween(g *route.Graph, a, b *registry.Asset, multi bool) *route.Route {
	for _, withdraw := range []bool{false, true} {
		for _, amt := range probeAmounts {
			rt, err := g.Find(route.Request{AmountIn: amt, SourceAssetChainID: a.ChainID, SourceAssetDenom: a.Denom,
				DestAssetChainID: b.ChainID, DestAssetDenom: b.Denom, AllowMultiTx: &multi, IsOPWithdraw: withdraw})
			if err == nil {
				return rt
			}
		}
	}
	return nil
}

// IBCOriginAssetsRequest is the /v2/fungible/ibc_origin_assets body.
type IBCOriginAssetsRequest struct {
	Assets []struct {
		Denom   string `json:"denom"`
		ChainID string `json:"chain_id"`
	} `json:"assets"`
}

// OptionalAsset is Skip's OptionalAsset: the asset when found.
type OptionalAsset struct {
	Asset      *route.Asset `json:"asset,omitempty"`
	AssetFound bool         `json:"asset_found"`
}

// ibcOriginAssets answers POST /v2/fungible/ibc_origin_assets (Skip client: ibcOriginAssets,
// reading response.origin_assets; skip-mev/skip-go@fa6095e:packages/client/src/api/postIbcOriginAssets.ts):
// for each (denom, chain_id), the asset it is a form of, following the registry's traces (IBC
// paths, and OPinit `op` traces, which make the L1 denom the origin of a rollup's `l2/` token;
// originOf). A
// denom the chain's registry does not list is asset_found false; an unknown chain fails the
// request, as everywhere in this API.
func (s *server) ibcOriginAssets(r *http.Request) (any, error) {
	var req IBCOriginAssetsRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	switch {
	case len(req.Assets) == 0:
		return nil, missing("assets")
	case len(req.Assets) > maxBatch:
		return nil, tooMany("assets", len(req.Assets))
	}
	reg := s.current().Registry()
	out := make([]OptionalAsset, len(req.Assets))
	for i, q := range req.Assets {
		switch {
		case q.ChainID == "":
			return nil, missing(field("assets", i, "chain_id"))
		case q.Denom == "":
			return nil, missing(field("assets", i, "denom"))
		}
		c := reg.Chain(q.ChainID)
		if c == nil {
			return nil, apierr.NotFoundf("unknown chain %q in %s", q.ChainID, field("assets", i, "chain_id")).WithDetails(route.ReasonUnknownChain)
		}
		a := c.Asset(q.Denom)
		if a == nil {
			continue
		}
		origin := originOf(reg, a)
		out[i] = OptionalAsset{Asset: &origin, AssetFound: true}
	}
	return map[string]any{"origin_assets": out}, nil
}

// originOf follows an asset to the token it is a form of: an OPinit `op` trace to the L1 denom
// (the registry records a rollup's `l2/` token as originating there, on the rollup), an IBC
// trace to its origin chain's denom, and on from there while the registry lists the next
// asset (an IBC voucher of an `l2/` token, say). A registry origin it does not list ends the
// walk with what the trace names.
func originOf(reg *registry.Registry, a *registry.Asset) route.Asset {
	for range 8 { // each step moves to another chain's asset; real traces have a few
		chainID, denom := a.OriginChainID, a.OriginDenom
		if a.OP != nil {
			chainID, denom = a.OP.L1ChainID, a.OP.L1Denom
		}
		if chainID == a.ChainID && denom == a.Denom {
			break
		}
		var next *registry.Asset
		if c := reg.Chain(chainID); c != nil {
			next = c.Asset(denom)
		}
		if next == nil {
			return route.Asset{Denom: denom, ChainID: chainID, OriginDenom: denom, OriginChainID: chainID}
		}
		a = next
	}
	return route.AssetOf(a)
}

// AssetsBetweenChainsRequest is the /v2/fungible/assets_between_chains body (or query).
type AssetsBetweenChainsRequest struct {
	SourceChainID string `json:"source_chain_id"`
	DestChainID   string `json:"dest_chain_id"`
	AllowMultiTx  bool   `json:"allow_multi_tx"`
	// include_evm_assets, include_cw20_assets and include_no_metadata_assets are accepted and
	// change nothing: both chains are named, so all their assets are considered (as
	// /v2/fungible/assets does with chain_ids), and every registry asset has its metadata.
}

// AssetBetweenChains is one asset on the source chain and what it becomes on the destination.
type AssetBetweenChains struct {
	AssetOnSource route.Asset `json:"asset_on_source"`
	AssetOnDest   route.Asset `json:"asset_on_dest"`
	TxsRequired   int         `json:"txs_required"`
	Bridges       []string    `json:"bridges"`
}

// assetsBetweenChainsPost answers POST /v2/fungible/assets_between_chains, as Skip's OpenAPI
// document has it.
func (s *server) assetsBetweenChainsPost(r *http.Request) (any, error) {
	var req AssetsBetweenChainsRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	return s.assetsBetweenChains(req)
}

// assetsBetweenChainsGet answers the same with the fields in the query: Skip's client declares
// no method for it, so createRequest's default GET sends it, with the fields as query
// parameters (skip-mev/skip-go@fa6095e:packages/client/src/api/getAssetsBetweenChains.ts,
// packages/client/src/utils/generateApi.ts createRequest).
func (s *server) assetsBetweenChainsGet(r *http.Request) (any, error) {
	q := r.URL.Query()
	multi, err := queryBool(r, "allow_multi_tx")
	if err != nil {
		return nil, err
	}
	return s.assetsBetweenChains(AssetsBetweenChainsRequest{SourceChainID: q.Get("source_chain_id"), DestChainID: q.Get("dest_chain_id"), AllowMultiTx: multi})
}

// assetsBetweenChains lists, for each asset of the source chain, each asset of the destination
// chain a route reaches (within one transaction unless allow_multi_tx), with that route's
// transaction count and bridges, in registry order.
func (s *server) assetsBetweenChains(req AssetsBetweenChainsRequest) (any, error) {
	g := s.current()
	reg := g.Registry()
	var chains [2]*registry.Chain
	for i, f := range []struct{ name, id string }{{"source_chain_id", req.SourceChainID}, {"dest_chain_id", req.DestChainID}} {
		if f.id == "" {
			return nil, missing(f.name)
		}
		if chains[i] = reg.Chain(f.id); chains[i] == nil {
			return nil, apierr.NotFoundf("unknown chain %q in %s", f.id, f.name).WithDetails(route.ReasonUnknownChain)
		}
	}
	src, dst := chains[0], chains[1]
	out := []AssetBetweenChains{}
	for _, a := range src.Assets {
		reach, err := g.Reachable(src.ID, a.Denom, req.AllowMultiTx)
		if err != nil {
			return nil, err
		}
		for _, b := range reach {
			if b.ChainID != dst.ID {
				continue
			}
			rt := routeBetween(g, a, b, req.AllowMultiTx)
			if rt == nil {
				continue
			}
			out = append(out, AssetBetweenChains{AssetOnSource: route.AssetOf(a), AssetOnDest: route.AssetOf(b),
				TxsRequired: rt.TxsRequired, Bridges: bridgesOf(rt)})
		}
	}
	return map[string]any{"assets_between_chains": out}, nil
}

// bridgesOf lists the bridge types a route crosses, each once, in route order (Skip's
// BridgeType values: IBC, OPINIT, LAYER_ZERO).
func bridgesOf(rt *route.Route) []string {
	out := []string{}
	for _, o := range rt.Operations {
		br := o.Hop().Bridge
		if br == nil || br.Name() == "" {
			continue
		}
		b := br.Name()
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

func field(list string, i int, name string) string {
	return list + "[" + strconv.Itoa(i) + "]." + name
}

func tooMany(list string, n int) error {
	return apierr.BadRequest("%s has %d entries; at most %d per request", list, n, maxBatch).WithDetails(ReasonTooManyItems)
}
