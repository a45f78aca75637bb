package api

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/redact"
	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// The discovery endpoints: chains, assets, bridges, and the assets reachable from one.

func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, apierr.BadRequest("query parameter %s must be a boolean", name).WithDetails("INVALID_PARAMETER")
	}
	return b, nil
}

// chainFilter resolves the chain_ids query (repeated or comma-separated); nil means all.
func chainFilter(reg *registry.Registry, r *http.Request) ([]*registry.Chain, error) {
	var ids []string
	for _, v := range r.URL.Query()["chain_ids"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return reg.Chains, nil
	}
	var out []*registry.Chain
	for _, id := range ids {
		c := reg.Chain(id)
		if c == nil {
			return nil, apierr.NotFoundf("unknown chain %q", id).WithDetails(route.ReasonUnknownChain)
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *server) chains(r *http.Request) (any, error) {
	reg := s.current().Registry()
	includeEVM, err := queryBool(r, "include_evm")
	if err != nil {
		return nil, err
	}
	onlyTestnets, err := queryBool(r, "only_testnets")
	if err != nil {
		return nil, err
	}
	explicit := r.URL.Query().Has("chain_ids")
	sel, err := chainFilter(reg, r)
	if err != nil {
		return nil, err
	}
	out := []wire.Chain{}
	for _, c := range sel {
		if c.Type == registry.ChainTypeEVM && !includeEVM && !explicit {
			continue
		}
		if onlyTestnets && !c.Testnet {
			continue
		}
		out = append(out, renderChain(reg, c))
	}
	return map[string]any{"chains": out}, nil
}

// renderChain is a chain's /v2/info/chains record. Its endpoint URLs are redacted: an
// operator's registry may carry credentials in them (user:password, ?apikey=), which the
// router uses but never serves.
func renderChain(reg *registry.Registry, c *registry.Chain) wire.Chain {
	ch := wire.Chain{ChainName: c.Name, ChainID: c.ID, PFMEnabled: c.PFM, SupportsMemo: c.Memo, Bech32Prefix: c.Bech32Prefix,
		FeeAssets: []wire.FeeAsset{}, ChainType: c.Type, IsTestnet: c.Testnet, PrettyName: c.PrettyName,
		CosmosModuleSupport: wire.CosmosModuleSupport{Authz: c.Authz, Feegrant: c.Feegrant},
		IBCCapabilities:     wire.IBCCapabilities{CosmosPFM: c.PFM, CosmosIBCHooks: c.Hooks, CosmosMemo: c.Memo}, Hidden: c.Hidden}
	if c.LogoURI != "" {
		l := c.LogoURI
		ch.LogoURI = &l
	}
	for _, t := range c.FeeTokens {
		fa := wire.FeeAsset{Denom: t.Denom}
		if t.Average != "" {
			fa.GasPrice = &wire.GasPrice{Low: t.Low, Average: t.Average, High: t.High}
		}
		ch.FeeAssets = append(ch.FeeAssets, fa)
	}
	if len(c.RPC) > 0 {
		ch.RPC = redact.URL(c.RPC[0])
	}
	if len(c.REST) > 0 {
		ch.REST = redact.URL(c.REST[0])
	}
	if c.Type == registry.ChainTypeEVM {
		if len(c.JSONRPC) > 0 {
			ch.RPC = redact.URL(c.JSONRPC[0])
		}
		for _, a := range c.Assets {
			if a.TokenContract == "" && strings.HasSuffix(a.Denom, "-native") {
				ch.EVMFeeAsset = &wire.EVMFeeAsset{Name: a.Name, Symbol: a.Symbol, Decimals: a.Decimals}
			}
		}
	}
	return ch
}

func (s *server) assets(r *http.Request) (any, error) {
	reg := s.current().Registry()
	sel, err := chainFilter(reg, r)
	if err != nil {
		return nil, err
	}
	nativeOnly, err := queryBool(r, "native_only")
	if err != nil {
		return nil, err
	}
	includeEVM, err := queryBool(r, "include_evm_assets")
	if err != nil {
		return nil, err
	}
	explicit := r.URL.Query().Has("chain_ids")
	out := map[string]map[string][]route.Asset{}
	for _, c := range sel {
		if c.Type == registry.ChainTypeEVM && !includeEVM && !explicit {
			continue
		}
		list := []route.Asset{}
		for _, a := range c.Assets {
			if nativeOnly && a.Trace != "" {
				continue
			}
			list = append(list, route.AssetOf(a))
		}
		out[c.ID] = map[string][]route.Asset{"assets": list}
	}
	return map[string]any{"chain_to_assets_map": out}, nil
}

// bridges answers /v2/info/bridges: every bridge of the table that Skip names.
func (s *server) bridges(*http.Request) (any, error) {
	type info struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		LogoURI string `json:"logo_uri"`
	}
	out := []info{}
	for _, b := range bridge.All {
		if b.Name() != "" {
			out = append(out, info{ID: b.Name(), Name: b.Title()})
		}
	}
	return map[string]any{"bridges": out}, nil
}

func (s *server) assetsFromSource(r *http.Request) (any, error) {
	var req wire.AssetsFromSourceRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	list, err := s.current().Reachable(req.SourceAssetChainID, req.SourceAssetDenom, req.AllowMultiTx)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string][]route.Asset{}
	for _, a := range list {
		m := out[a.ChainID]
		if m == nil {
			m = map[string][]route.Asset{"assets": {}}
			out[a.ChainID] = m
		}
		m["assets"] = append(m["assets"], route.AssetOf(a))
	}
	return map[string]any{"dest_assets": out}, nil
}

func (s *server) healthz(*http.Request) (any, error) { return map[string]string{"status": "ok"}, nil }
