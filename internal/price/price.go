// Package price gives the registry's assets a USD price from the chain itself: Skip's
// Connect oracle (x/oracle) on the registry's L1, read over its REST gateway, with an
// optional CoinGecko-compatible `simple/price` endpoint for the assets the oracle does not
// quote. A background loop refreshes both into an immutable snapshot; a lookup is an
// atomic load and a few map reads, so the answers that show dollar values pay nothing for
// the refresh.
//
// An asset maps to the oracle pair the operator's mapping file names for it (by chain and
// denom, then by symbol), else to "<SYMBOL>/USD"; an IBC or OPinit voucher is priced as its
// origin asset. A price is never guessed: one that is unknown, or older than the bound, is
// absent, and the lookup says why. Every value is exact (math/big): amount × price ÷
// 10^decimals.
package price

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/redact"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// QuoteCurrency is the currency every price is in; only pairs quoted in it give a value.
const QuoteCurrency = "USD"

// Sources of a price.
const (
	SourceOracle    = "connect"   // Skip's Connect oracle on the registry's L1
	SourceCoinGecko = "coingecko" // the optional CoinGecko-compatible endpoint
)

// Defaults.
const (
	DefaultMaxAge        = 5 * time.Minute
	DefaultRefresh       = 10 * time.Second
	DefaultGeckoRefresh  = time.Minute
	defaultFetchDeadline = 20 * time.Second
)

// Quote is one price: USD per whole token (10^decimals base units), from Source, under Ref
// (the oracle pair or the CoinGecko id), set at At (the oracle's block time, or CoinGecko's
// last_updated_at), at oracle height Height (0 for CoinGecko).
type Quote struct {
	USD    *big.Rat
	Source string
	Ref    string
	Height int64
	At     time.Time
	text   string // FormatDecimal(USD), rendered once per refresh
}

// Text is the price as an exact decimal string ("0.51234567").
func (q Quote) Text() string {
	if q.text == "" && q.USD != nil {
		return FormatDecimal(q.USD)
	}
	return q.text
}

// rendered renders every quote's text once, so answers do not.
func rendered(m map[string]Quote) map[string]Quote {
	for k, q := range m {
		q.text = FormatDecimal(q.USD)
		m[k] = q
	}
	return m
}

// Price is a lookup's answer: the quote when OK, else Reason says why there is none.
type Price struct {
	Quote
	OK     bool
	Reason string
	// Age is how old the quote is at the lookup (also set when it is too old).
	Age time.Duration
}

// AgeSeconds is Age in whole seconds, never negative (a source clock ahead of ours).
func (p Price) AgeSeconds() int64 { return max(int64(p.Age/time.Second), 0) }

// Config configures a Service.
type Config struct {
	// MaxAge is the staleness bound: a quote set longer ago is absent (DefaultMaxAge when 0).
	MaxAge time.Duration
	// Refresh is how often the oracle is read (DefaultRefresh when 0).
	Refresh time.Duration
	// OracleREST, when set, are the REST endpoints the oracle is read from instead of the
	// registry L1's (a node of the L1 the registry does not list, e.g. one with more
	// capacity); comma-separated for several.
	OracleREST string
	// Mapping is the operator's asset → pair mapping.
	Mapping Mapping
	// CoinGecko, when its URL is set, is the second source.
	CoinGecko CoinGecko
	// GeckoRefresh is how often CoinGecko is asked (DefaultGeckoRefresh when 0): its plans
	// meter calls.
	GeckoRefresh time.Duration
	// Options are the upstream clients' options (timeouts, retries).
	Options []httpx.Option
	// Now is the clock ages are measured with (time.Now when nil); tests pin it.
	Now func() time.Time
	// ChainClock measures ages in the L1's time instead: at each oracle read the L1's latest
	// block time is read too, and a price's age is that time, plus the time since the read,
	// minus the price's block time. For a chain whose block times do not follow the wall clock
	// (the devnet, whose blocks are genesis + height × interval and fall behind when the
	// machine is slow); a halted chain's prices then never age, so real networks leave it off.
	ChainClock bool
	Log        *slog.Logger
}

// Service holds the current prices of a registry's assets.
type Service struct {
	cfg     Config
	mapping Mapping
	reg     func() *registry.Registry
	gecko   *geckoClient
	snap    atomic.Pointer[snapshot]
	index   atomic.Pointer[refIndex]

	mu      sync.Mutex
	oracles map[string]*cosmosrest.Client // by the L1's REST endpoints
}

// snapshot is one immutable reading of both sources.
type snapshot struct {
	oracle    map[string]Quote // by pair "BASE/USD"
	oracleErr string           // why the last oracle read failed ("" when it did not)
	oracleAt  time.Time        // when the oracle was last read successfully
	// skew is how far the L1's clock is behind ours at the last read (ChainClock only).
	skew     time.Duration
	gecko    map[string]Quote // by CoinGecko id
	geckoErr string
	geckoAt  time.Time
}

var emptySnapshot = &snapshot{oracleErr: "the oracle has not been read yet", geckoErr: "coingecko has not been read yet"}

// refIndex is every asset's pair and CoinGecko id in one registry snapshot, built by the
// refresh so a lookup does not work them out.
type refIndex struct {
	reg  *registry.Registry
	refs map[*registry.Asset][2]string
}

// indexFor returns the index of reg, building it when reg is not the indexed snapshot.
func (s *Service) indexFor(reg *registry.Registry) *refIndex {
	if ix := s.index.Load(); ix != nil && ix.reg == reg {
		return ix
	}
	ix := &refIndex{reg: reg, refs: map[*registry.Asset][2]string{}}
	for _, c := range reg.Chains {
		for _, a := range c.Assets {
			p, g := s.refs(reg, a)
			ix.refs[a] = [2]string{p, g}
		}
	}
	s.index.Store(ix)
	return ix
}

// New returns a service pricing the assets of the registry reg returns (read at each refresh
// and lookup, so a refreshed registry is followed).
func New(cfg Config, reg func() *registry.Registry) (*Service, error) {
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = DefaultMaxAge
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	if cfg.GeckoRefresh <= 0 {
		cfg.GeckoRefresh = DefaultGeckoRefresh
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if err := cfg.Mapping.check(); err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, mapping: cfg.Mapping.normalized(), reg: reg, oracles: map[string]*cosmosrest.Client{}}
	if cfg.CoinGecko.URL != "" {
		g, err := newGecko(cfg.CoinGecko, cfg.Options)
		if err != nil {
			return nil, err
		}
		s.gecko = g
	}
	s.snap.Store(emptySnapshot)
	return s, nil
}

// MaxAge is the staleness bound in force.
func (s *Service) MaxAge() time.Duration { return s.cfg.MaxAge }

// Lookup prices one asset of the current snapshot. It never blocks and never fails: an asset
// without a usable price answers OK false and the reason.
func (s *Service) Lookup(reg *registry.Registry, a *registry.Asset) Price {
	if s == nil {
		return Price{Reason: "prices are not configured"}
	}
	if a == nil {
		return Price{Reason: "the registry does not list this asset"}
	}
	snap := s.snap.Load()
	now := s.cfg.Now()
	var pair, geckoID string
	if ix := s.index.Load(); ix != nil && ix.reg == reg {
		r, ok := ix.refs[a]
		if !ok {
			r[0], r[1] = s.refs(reg, a) // an unlisted asset (Chain.Unlisted)
		}
		pair, geckoID = r[0], r[1]
	} else {
		pair, geckoID = s.refs(reg, a)
	}
	if pair != "" && pair != NoPair {
		if q, ok := snap.oracle[pair]; ok {
			return s.judge(q, now.Add(-snap.skew))
		}
		if snap.oracleErr != "" && (geckoID == "" || s.gecko == nil) {
			return Price{Reason: fmt.Sprintf("no %s price: %s", pair, snap.oracleErr)}
		}
	}
	if geckoID != "" && s.gecko != nil {
		if q, ok := snap.gecko[geckoID]; ok {
			return s.judge(q, now)
		}
		if snap.geckoErr != "" {
			return Price{Reason: fmt.Sprintf("no coingecko price for %s: %s", geckoID, snap.geckoErr)}
		}
		return Price{Reason: fmt.Sprintf("coingecko has no price for %s", geckoID)}
	}
	switch {
	case pair == NoPair && geckoID == "":
		return Price{Reason: "the price mapping takes this asset off the oracle and it has no coingecko_id"}
	case pair == "" && geckoID == "":
		return Price{Reason: "the asset has no symbol and no coingecko_id"}
	case geckoID != "":
		return Price{Reason: fmt.Sprintf("the oracle does not quote %s and no coingecko source is configured for %s", pair, geckoID)}
	}
	return Price{Reason: fmt.Sprintf("the oracle does not quote %s and the asset has no coingecko_id", pair)}
}

// LookupDenom prices the asset denom of chainID (absent when the registry does not list it).
func (s *Service) LookupDenom(reg *registry.Registry, chainID, denom string) Price {
	c := reg.Chain(chainID)
	if c == nil {
		return Price{Reason: "the registry does not list this chain"}
	}
	return s.Lookup(reg, c.Asset(denom))
}

func (s *Service) judge(q Quote, now time.Time) Price {
	p := Price{Quote: q, Age: now.Sub(q.At)}
	if p.Age > s.cfg.MaxAge {
		p.Reason = fmt.Sprintf("stale: %s from %s was last updated %s ago (height %d), beyond the %s bound",
			q.Ref, q.Source, p.Age.Truncate(time.Second), q.Height, s.cfg.MaxAge)
		if q.Source == SourceCoinGecko {
			p.Reason = fmt.Sprintf("stale: %s from coingecko was last updated %s ago, beyond the %s bound", q.Ref, p.Age.Truncate(time.Second), s.cfg.MaxAge)
		}
		p.Quote = Quote{Source: q.Source, Ref: q.Ref, Height: q.Height, At: q.At}
		return p
	}
	p.OK = true
	return p
}

// refs names the asset's oracle pair and CoinGecko id: the mapping's pair for the asset,
// else its origin's (a voucher is the same token), else the symbol's; the coingecko_id of
// the asset or of its origin.
func (s *Service) refs(reg *registry.Registry, a *registry.Asset) (pair, geckoID string) {
	origin := originOf(reg, a)
	pair = s.mapping.pairFor(a.ChainID, a.Denom, a.Symbol)
	if pair == "" && origin != nil {
		pair = s.mapping.pairFor(origin.ChainID, origin.Denom, origin.Symbol)
	}
	if pair == "" {
		sym := a.Symbol
		if origin != nil && origin.Symbol != "" {
			sym = origin.Symbol
		}
		if sym != "" {
			pair = strings.ToUpper(sym) + "/" + QuoteCurrency
		}
	}
	geckoID = a.CoingeckoID
	if geckoID == "" && origin != nil {
		geckoID = origin.CoingeckoID
	}
	return pair, geckoID
}

// originOf is the registry asset a voucher came from (nil for a native asset or an origin
// the registry does not list).
func originOf(reg *registry.Registry, a *registry.Asset) *registry.Asset {
	if reg == nil || a.OriginChainID == "" || (a.OriginChainID == a.ChainID && a.OriginDenom == a.Denom) {
		return nil
	}
	c := reg.Chain(a.OriginChainID)
	if c == nil {
		return nil
	}
	return c.Asset(a.OriginDenom)
}

// Run refreshes at once and then on the configured periods until ctx ends. A failure is
// logged at warn when it is new, a recovery at info; an unchanged state is quiet.
func (s *Service) Run(ctx context.Context) {
	oracle := time.NewTicker(s.cfg.Refresh)
	defer oracle.Stop()
	gecko := time.NewTicker(s.cfg.GeckoRefresh)
	defer gecko.Stop()
	lastErr := map[string]string{}
	report := func(what string, err error) {
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		switch {
		case msg != "" && msg != lastErr[what]:
			s.cfg.Log.Warn("price refresh failed: its prices age until the next read", "source", what, "err", msg)
		case msg == "" && lastErr[what] != "":
			s.cfg.Log.Info("price refresh works again", "source", what)
		}
		lastErr[what] = msg
	}
	report(SourceOracle, s.RefreshOracle(ctx))
	if s.gecko != nil {
		report(SourceCoinGecko, s.RefreshCoinGecko(ctx))
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-oracle.C:
			report(SourceOracle, s.RefreshOracle(ctx))
		case <-gecko.C:
			if s.gecko != nil {
				report(SourceCoinGecko, s.RefreshCoinGecko(ctx))
			}
		}
	}
}

// RefreshOracle reads the L1's oracle once and swaps the result in. On failure the previous
// quotes are kept (they age and fall beyond the bound on their own) and the error is
// recorded for the answers.
func (s *Service) RefreshOracle(ctx context.Context) error {
	reg := s.reg()
	s.indexFor(reg)
	var l1 *registry.Chain
	for _, c := range reg.Chains {
		if c.L1 && (len(c.REST) > 0 || s.cfg.OracleREST != "") {
			l1 = c
			break
		}
	}
	var quotes map[string]Quote
	var skew time.Duration
	err := fmt.Errorf("the registry has no L1 with a REST endpoint")
	if l1 != nil {
		ctx, cancel := context.WithTimeout(ctx, defaultFetchDeadline)
		defer cancel()
		var cl *cosmosrest.Client
		if cl, err = s.oracleClient(l1); err == nil {
			quotes, err = readOracle(ctx, cl)
		}
		if err == nil && s.cfg.ChainClock {
			skew, err = chainSkew(ctx, cl, s.cfg.Now())
		}
		if err != nil {
			err = fmt.Errorf("%s", oracleError(l1.ID, err))
		}
	}
	s.swap(func(n *snapshot) {
		if err != nil {
			n.oracleErr = redact.Text(err.Error())
			return
		}
		n.oracle, n.oracleErr, n.oracleAt, n.skew = rendered(quotes), "", s.cfg.Now(), skew
	})
	return err
}

// chainSkew is how far the chain's latest block time is behind now.
func chainSkew(ctx context.Context, cl *cosmosrest.Client, now time.Time) (time.Duration, error) {
	b, err := cl.LatestBlock(ctx)
	if err != nil {
		return 0, err
	}
	t, err := time.Parse(time.RFC3339Nano, b.Time)
	if err != nil {
		return 0, fmt.Errorf("latest block time %q: %w", b.Time, err)
	}
	return now.Sub(t), nil
}

// RefreshCoinGecko asks the second source for every coingecko_id of the registry whose
// asset the oracle does not quote.
func (s *Service) RefreshCoinGecko(ctx context.Context) error {
	if s.gecko == nil {
		return nil
	}
	reg := s.reg()
	snap := s.snap.Load()
	ix := s.indexFor(reg)
	var ids []string
	for _, c := range reg.Chains {
		for _, a := range c.Assets {
			pair, id := ix.refs[a][0], ix.refs[a][1]
			if _, quoted := snap.oracle[pair]; id != "" && !quoted {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, defaultFetchDeadline)
	defer cancel()
	quotes, err := s.gecko.read(ctx, ids, s.cfg.Now())
	s.swap(func(n *snapshot) {
		if err != nil {
			n.geckoErr = err.Error()
			return
		}
		n.gecko, n.geckoErr, n.geckoAt = rendered(quotes), "", s.cfg.Now()
	})
	return err
}

// swap applies edit to a copy of the snapshot and publishes it; the two refreshers may race,
// so the copy-and-store is serialised.
func (s *Service) swap(edit func(*snapshot)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := *s.snap.Load()
	edit(&n)
	s.snap.Store(&n)
}

func (s *Service) oracleClient(l1 *registry.Chain) (*cosmosrest.Client, error) {
	key := strings.Join(l1.REST, ",")
	if s.cfg.OracleREST != "" {
		key = s.cfg.OracleREST
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cl, ok := s.oracles[key]; ok {
		return cl, nil
	}
	cl, err := cosmosrest.New(key, s.cfg.Options...)
	if err != nil {
		return nil, fmt.Errorf("rest client: %s", redact.Text(err.Error()))
	}
	s.oracles[key] = cl
	return cl, nil
}

// Status is what the service knows, for an operator's view: when each source was last read
// and why it failed, if it did.
type Status struct {
	OracleReadAt time.Time
	OracleError  string
	OraclePairs  int
	GeckoReadAt  time.Time
	GeckoError   string
	GeckoIDs     int
	GeckoEnabled bool
}

// Status reports the current snapshot.
func (s *Service) Status() Status {
	snap := s.snap.Load()
	return Status{OracleReadAt: snap.oracleAt, OracleError: snap.oracleErr, OraclePairs: len(snap.oracle),
		GeckoReadAt: snap.geckoAt, GeckoError: snap.geckoErr, GeckoIDs: len(snap.gecko), GeckoEnabled: s.gecko != nil}
}

// Register adds the service's gauges to reg: how many quotes each source holds and how long
// ago each was last read successfully (-1 before the first read), under namespace.
func (s *Service) Register(reg prometheus.Registerer, namespace string) error {
	since := func(t func(*snapshot) time.Time) func() float64 {
		return func() float64 {
			at := t(s.snap.Load())
			if at.IsZero() {
				return -1
			}
			return s.cfg.Now().Sub(at).Seconds()
		}
	}
	gauges := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: "price_oracle_quotes", Help: "USD quotes read from the L1's Connect oracle at the last successful read."},
			func() float64 { return float64(len(s.snap.Load().oracle)) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: "price_oracle_read_age_seconds", Help: "Seconds since the oracle was last read successfully (-1: never)."},
			since(func(n *snapshot) time.Time { return n.oracleAt })),
	}
	if s.gecko != nil {
		gauges = append(gauges,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: "price_coingecko_quotes", Help: "USD quotes read from the CoinGecko source at the last successful read."},
				func() float64 { return float64(len(s.snap.Load().gecko)) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: "price_coingecko_read_age_seconds", Help: "Seconds since the CoinGecko source was last read successfully (-1: never)."},
				since(func(n *snapshot) time.Time { return n.geckoAt })))
	}
	for _, g := range gauges {
		if err := reg.Register(g); err != nil {
			return err
		}
	}
	return nil
}
