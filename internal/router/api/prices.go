package api

import (
	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// Dollar values where the clients read them: Skip's usd_amount_in/out on a route (and the
// route of msgs_direct), usd_amount on each estimated fee, price and value_usd on balances
// (Skip's OpenAPI document, testdata/skip-go-api-openapi.yml: RouteResponse, Fee,
// BalanceResponseDenomEntry; initia.js v2 reads the same names). Each is
// the exact amount × price ÷ 10^decimals (internal/price), in cents; without a current price
// the field is absent, never 0, and price_info says why. A lookup is an atomic read of the
// price snapshot: the refresh costs the answer nothing.

// info renders a lookup for price_info.
func info(p price.Price, chainID, denom string) route.PriceInfo {
	pi := route.PriceInfo{ChainID: chainID, Denom: denom, Source: p.Source, Height: p.Height}
	switch p.Source {
	case price.SourceOracle:
		pi.CurrencyPair = p.Ref
	case price.SourceCoinGecko:
		pi.CoingeckoID = p.Ref
	}
	if !p.At.IsZero() {
		age := p.AgeSeconds()
		pi.AgeSeconds = &age
	}
	if p.OK {
		pi.Price = p.Text()
	} else {
		pi.Unavailable = p.Reason
	}
	return pi
}

// usdOf is the dollar value of amount of an asset ("" when there is none) and where its price
// came from.
func (s *server) usdOf(reg *registry.Registry, chainID, denom, amount string) (string, route.PriceInfo) {
	p := s.cfg.Prices.LookupDenom(reg, chainID, denom)
	pi := info(p, chainID, denom)
	if !p.OK {
		return "", pi
	}
	a := reg.Chain(chainID).Asset(denom)
	v, ok := price.Value(amount, a.Decimals, p.USD)
	if !ok {
		return "", pi
	}
	return price.FormatUSD(v), pi
}

// priceRoute fills the route's dollar fields and its fees'.
func (s *server) priceRoute(reg *registry.Registry, rt *route.Route) {
	if s.cfg.Prices == nil {
		return
	}
	var in, out route.PriceInfo
	rt.USDAmountIn, in = s.usdOf(reg, rt.SourceAssetChainID, rt.SourceAssetDenom, rt.AmountIn)
	rt.USDAmountOut, out = s.usdOf(reg, rt.DestAssetChainID, rt.DestAssetDenom, rt.AmountOut)
	rt.PriceInfo = []route.PriceInfo{in}
	if out.ChainID != in.ChainID || out.Denom != in.Denom {
		rt.PriceInfo = append(rt.PriceInfo, out)
	}
	s.priceFees(reg, rt.EstimatedFees)
}

func (s *server) priceFees(reg *registry.Registry, fees []route.Fee) {
	if s.cfg.Prices == nil {
		return
	}
	for i := range fees {
		fees[i].USDAmount, _ = s.usdOf(reg, fees[i].OriginAsset.ChainID, fees[i].OriginAsset.Denom, fees[i].Amount)
	}
}

// priceBalance fills a balance entry's price and value_usd.
func (s *server) priceBalance(reg *registry.Registry, chainID, denom string, b *wire.DenomBalance) {
	if s.cfg.Prices == nil || b.Error != nil {
		return
	}
	p := s.cfg.Prices.LookupDenom(reg, chainID, denom)
	pi := info(p, "", "")
	b.PriceInfo = &pi
	if !p.OK || b.Decimals == nil {
		return
	}
	v, ok := price.Value(b.Amount, *b.Decimals, p.USD)
	if !ok {
		return
	}
	ps, vs := p.Text(), price.FormatUSD(v)
	b.Price, b.ValueUSD = &ps, &vs
}
