package cli

import (
	"context"
	"log/slog"
	"time"

	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// envCoinGeckoKey carries the CoinGecko key. It is read after parsing rather than as the
// flag's default, so --help never prints it.
const envCoinGeckoKey = "ROLLGATE_PRICE_COINGECKO_KEY"

// priceFlags configure the USD prices of the router and the fleet (internal/price).
type priceFlags struct {
	Enabled      bool
	Refresh      time.Duration
	MaxAge       time.Duration
	Mapping      string
	OracleREST   string
	GeckoURL     string
	GeckoKey     string
	GeckoHeader  string
	GeckoRefresh time.Duration
	ChainClock   bool
}

func (p *priceFlags) register(f *flags) {
	f.Bool(&p.Enabled, "prices", true, "USD values from the registry L1's Connect oracle (x/oracle REST); false leaves every USD field out", "ROLLGATE_PRICES")
	f.Duration(&p.Refresh, "price-refresh", price.DefaultRefresh, "how often the oracle's prices are read", "ROLLGATE_PRICE_REFRESH")
	f.Duration(&p.MaxAge, "price-max-age", price.DefaultMaxAge, "a price set longer ago than this is absent (never shown stale)", "ROLLGATE_PRICE_MAX_AGE")
	f.String(&p.Mapping, "price-mapping", "", `JSON file mapping assets to oracle pairs: {"symbols":{"WETH":"ETH/USD"},"denoms":{"<chain_id>":{"<denom>":"ATOM/USD"}}}`, "ROLLGATE_PRICE_MAPPING")
	f.String(&p.OracleREST, "price-oracle-rest", "", "REST endpoint(s) to read the oracle from instead of the registry L1's (comma-separated)", "ROLLGATE_PRICE_ORACLE_REST")
	f.String(&p.GeckoURL, "price-coingecko-url", "", "CoinGecko-compatible API base (e.g. https://pro-api.coingecko.com/api/v3) pricing, by coingecko_id, the assets the oracle does not quote; empty: none", "ROLLGATE_PRICE_COINGECKO_URL")
	f.String(&p.GeckoKey, "price-coingecko-key", "", "CoinGecko API key, sent in a header, never logged (or env "+envCoinGeckoKey+")")
	f.String(&p.GeckoHeader, "price-coingecko-key-header", price.DefaultKeyHeader, "header the CoinGecko key is sent in (x-cg-demo-api-key on the demo plan)", "ROLLGATE_PRICE_COINGECKO_KEY_HEADER")
	f.Bool(&p.ChainClock, "price-chain-clock", false, "measure price ages in the L1's block time, not the wall clock (for a chain whose clock lags; a halted chain's prices then never age)", "ROLLGATE_PRICE_CHAIN_CLOCK")
	f.Duration(&p.GeckoRefresh, "price-coingecko-refresh", price.DefaultGeckoRefresh, "how often CoinGecko is asked", "ROLLGATE_PRICE_COINGECKO_REFRESH")
}

func (p *priceFlags) validate(env *Env) error {
	if p.GeckoKey == "" {
		p.GeckoKey = env.Getenv(envCoinGeckoKey)
	}
	switch {
	case p.Refresh <= 0:
		return usagef("--price-refresh must be positive")
	case p.MaxAge <= 0:
		return usagef("--price-max-age must be positive")
	case p.GeckoRefresh <= 0:
		return usagef("--price-coingecko-refresh must be positive")
	case p.GeckoKey != "" && p.GeckoURL == "":
		return usagef("--price-coingecko-key without --price-coingecko-url")
	}
	return nil
}

// defaultPrices is what `up` runs: the devnet L1's oracle, the default periods, ages in the
// devnet's own time (its block times fall behind the wall clock on a loaded machine).
var defaultPrices = priceFlags{Enabled: true, Refresh: price.DefaultRefresh, MaxAge: price.DefaultMaxAge, GeckoRefresh: price.DefaultGeckoRefresh, ChainClock: true}

// startPrices builds the price service over live's registry and runs its refresh in g; nil
// when prices are off.
func startPrices(g *group, p priceFlags, reg func() *registry.Registry, log *slog.Logger) (*price.Service, error) {
	if !p.Enabled {
		return nil, nil
	}
	cfg := price.Config{MaxAge: p.MaxAge, Refresh: p.Refresh, OracleREST: p.OracleREST, GeckoRefresh: p.GeckoRefresh, ChainClock: p.ChainClock,
		CoinGecko: price.CoinGecko{URL: p.GeckoURL, Key: p.GeckoKey, KeyHeader: p.GeckoHeader}, Log: log.With("component", "prices")}
	if p.Mapping != "" {
		m, err := price.LoadMapping(p.Mapping)
		if err != nil {
			return nil, err
		}
		cfg.Mapping = m
	}
	s, err := price.New(cfg, reg)
	if err != nil {
		return nil, err
	}
	g.Go(func(ctx context.Context) error {
		s.Run(ctx)
		return ctx.Err()
	})
	return s, nil
}
