package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
)

// ReasonUnsupportedQuote: an asset list asked in a currency other than USD.
const ReasonUnsupportedQuote = "UNSUPPORTED_QUOTE"

// PricedAsset is one entry of GET /initia/{chain_id}/assets, the asset list with prices two
// wallets read from Initia's API:
//   - Celatone: GET {INITIA_API}/{chain}/{chainId}/assets?with_prices=… (alleslabs/
//     celatone-frontend@99feb85:src/lib/app-provider/hooks/useBaseApiRoute.ts:60,
//     src/lib/services/asset.ts) parsed strictly by zAssetInfo (src/lib/types/asset.ts): all
//     ten fields, price a non-negative number;
//   - InterwovenKit: GET initia/{chainId}/assets?quote=USD&with_prices=true for every registry
//     chain (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/data/chains.ts:
//     190-206), reading id and price (PriceItem).
//
// One record serves both. PriceInfo is a rollgate extension both clients ignore.
type PricedAsset struct {
	ID          string           `json:"id"`
	Symbol      string           `json:"symbol"`
	Name        string           `json:"name"`
	Precision   int              `json:"precision"`
	Logo        string           `json:"logo"`
	Price       float64          `json:"price"`
	Coingecko   string           `json:"coingecko"`
	Slugs       []string         `json:"slugs"`
	Type        string           `json:"type"`
	Description string           `json:"description"`
	PriceInfo   *route.PriceInfo `json:"price_info,omitempty"`
}

// pricedAssets answers GET /initia/{chain_id}/assets: the chain's registry assets that have a
// current price, each with it. An asset without one is left out rather than listed at 0:
// Celatone's schema has no way to say "no price" (a missing price fails its whole list), and
// it fills the assets missing here from its own registry (src/lib/services/assetService.ts);
// InterwovenKit then finds no price for them, which is what it should show. with_prices=false
// answers the same list, since Celatone's schema wants the price either way. "initia" is the
// {chain} of Celatone's URL on Initia networks, and InterwovenKit's fixed path.
func (s *server) pricedAssets(r *http.Request) (any, error) {
	if _, err := queryBool(r, "with_prices"); err != nil {
		return nil, err
	}
	if q := r.URL.Query().Get("quote"); q != "" && !strings.EqualFold(q, price.QuoteCurrency) {
		return nil, apierr.BadRequest("quote %q: prices are in %s only", q, price.QuoteCurrency).WithDetails(ReasonUnsupportedQuote)
	}
	reg := s.current().Registry()
	id := r.PathValue("chain_id")
	c := reg.Chain(id)
	if c == nil {
		return nil, apierr.NotFoundf("unknown chain %q", id).WithDetails(route.ReasonUnknownChain)
	}
	out := []PricedAsset{}
	if s.cfg.Prices == nil {
		return out, nil
	}
	for _, a := range c.Assets {
		p := s.cfg.Prices.Lookup(reg, a)
		if !p.OK {
			continue
		}
		pi := info(p, "", "")
		out = append(out, pricedAsset(a, price.Float(p.USD), &pi))
	}
	return out, nil
}

func pricedAsset(a *registry.Asset, usd float64, pi *route.PriceInfo) PricedAsset {
	e := PricedAsset{ID: a.Denom, Symbol: a.Symbol, Name: a.Name, Precision: a.Decimals, Logo: a.LogoURI, Price: usd,
		Coingecko: a.CoingeckoID, Slugs: []string{}, Type: "native", Description: a.Description, PriceInfo: pi}
	if a.CoingeckoID != "" {
		e.Slugs = []string{a.CoingeckoID}
	}
	if strings.HasPrefix(a.Denom, "cw20:") {
		e.Type = "cw20"
	}
	return e
}

// PriceStatus is GET /prices: what the router knows of prices, for an operator. Each source's
// last successful read and why the last one failed, then every registry asset with its
// price_info (price, source, pair or id, height, age, or why there is none).
type PriceStatus struct {
	MaxAgeSeconds int64              `json:"max_age_seconds"`
	Oracle        PriceSourceStatus  `json:"oracle"`
	CoinGecko     *PriceSourceStatus `json:"coingecko,omitempty"`
	Assets        []route.PriceInfo  `json:"assets"`
}

// PriceSourceStatus is one source's state.
type PriceSourceStatus struct {
	ReadAt *string `json:"read_at,omitempty"` // RFC 3339, absent before the first successful read
	Error  string  `json:"error,omitempty"`
	Quotes int     `json:"quotes"`
}

func (s *server) priceStatus(*http.Request) (any, error) {
	if s.cfg.Prices == nil {
		return nil, apierr.NotFoundf("prices are not configured (--prices=false)").WithDetails("PRICES_DISABLED")
	}
	st := s.cfg.Prices.Status()
	at := func(t time.Time) *string {
		if t.IsZero() {
			return nil
		}
		v := t.UTC().Format(time.RFC3339)
		return &v
	}
	out := PriceStatus{MaxAgeSeconds: int64(s.cfg.Prices.MaxAge() / time.Second), Assets: []route.PriceInfo{},
		Oracle: PriceSourceStatus{ReadAt: at(st.OracleReadAt), Error: st.OracleError, Quotes: st.OraclePairs}}
	if st.GeckoEnabled {
		out.CoinGecko = &PriceSourceStatus{ReadAt: at(st.GeckoReadAt), Error: st.GeckoError, Quotes: st.GeckoIDs}
	}
	reg := s.current().Registry()
	for _, c := range reg.Chains {
		for _, a := range c.Assets {
			out.Assets = append(out.Assets, info(s.cfg.Prices.Lookup(reg, a), c.ID, a.Denom))
		}
	}
	return out, nil
}
