package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/redact"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/store"
)

// The portfolio across rollups in Minity's shapes, which InterwovenKit's wallet view reads
// from its configurable minityUrl (initia-labs/interwovenkit@913e480:
// packages/interwovenkit-react/src/data/minity/): the SSE stream
// {minityUrl}/v1/chain/all/{address} (sse.ts, hooks.ts: usePortfolioSSE) and the REST routes
// v1/supported-chains, v1/prices and v1/chain/{name}/{address}/balances (query-keys.ts),
// with the types of types.ts. The fleet serves them under /minity, so minityUrl is
// "{fleet URL}/minity".
//
// Balances come from the chain's rich list in the fleet's store when the fleet indexes the
// chain with one, from the chain's REST otherwise (the L1, a chain the fleet does not run).
// Values are the exact amount × price ÷ 10^decimals (internal/price); a balance without a
// current price has no value field (InterwovenKit then falls back to its own prices:
// utilities.ts applyFallbackPricing).

// MinityPrefix is the path the Minity routes are served under.
const MinityPrefix = "/minity"

// ReasonUnknownChainName: a Minity chain name the registry does not have.
const ReasonUnknownChainName = "UNKNOWN_CHAIN"

// BalanceSource reads an account's balances on a chain from its REST (base-unit decimal
// strings by denom); registry.RESTBalances implements it.
type BalanceSource interface {
	Balances(ctx context.Context, c *registry.Chain, address string) (map[string]string, error)
}

// PortfolioConfig enables the Minity routes.
type PortfolioConfig struct {
	// Registry is the network's registry: the chains (every Initia chain: the L1 and its
	// rollups), their assets' symbols and decimals.
	Registry func() *registry.Registry
	// Prices gives balances their value; nil: no value field.
	Prices *price.Service
	// REST reads the balances of the chains the fleet keeps no rich list of.
	REST BalanceSource
	// ChainTimeout bounds one chain's answer in the stream (DefaultChainTimeout when 0): a
	// chain that does not answer in time is an error event, never a hang.
	ChainTimeout time.Duration
}

// DefaultChainTimeout bounds one chain's balances in the portfolio stream.
const DefaultChainTimeout = 10 * time.Second

// portfolioConcurrency bounds the chains one stream reads at once.
const portfolioConcurrency = 8

// MinityBalance is types.ts TokenAsset ({type:"asset", denom, symbol, value?, amount,
// formattedAmount, decimals}) or UnknownAsset ({type:"unknown", denom, amount}) for a denom
// the registry does not describe.
type MinityBalance struct {
	Type            string   `json:"type"`
	Denom           string   `json:"denom"`
	Symbol          string   `json:"symbol,omitempty"`
	Value           *float64 `json:"value,omitempty"`
	Amount          string   `json:"amount"`
	FormattedAmount *float64 `json:"formattedAmount,omitempty"`
	Decimals        *int     `json:"decimals,omitempty"`
}

// MinityEvent is one event of the stream: types.ts SSEBalanceEvent ({type:"balances", chain,
// chainId, balances}), or {type:"error", chain, chainId, error} for a chain that could not be
// read (InterwovenKit ignores types it does not know and keeps the chains it has).
type MinityEvent struct {
	Type     string          `json:"type"`
	Chain    string          `json:"chain"`
	ChainID  string          `json:"chainId"`
	Balances []MinityBalance `json:"balances,omitempty"`
	Error    string          `json:"error,omitempty"`
	// Source says where the balances were read: "rich_list" (the fleet's store, at Height) or
	// "rest" (the chain's REST). A rollgate extension.
	Source string `json:"source,omitempty"`
	Height int64  `json:"height,omitempty"`
}

// minityRoutes are served whether or not the portfolio is configured: without a registry
// they answer 404 PORTFOLIO_DISABLED.
func (s *fleetServer) minityRoutes() []httpapi.Route {
	return []httpapi.Route{
		{Pattern: "GET " + MinityPrefix + "/v1/supported-chains", Handler: s.portfolio(s.minityChains), InSpec: true},
		{Pattern: "GET " + MinityPrefix + "/v1/prices", Handler: s.portfolio(s.minityPrices), InSpec: true, NoStore: true},
		{Pattern: "GET " + MinityPrefix + "/v1/chain/all/{address}", Stream: s.minityStream, InSpec: true},
		{Pattern: "GET " + MinityPrefix + "/v1/chain/{name}/{address}/balances", Handler: s.portfolio(s.minityBalances), InSpec: true, NoStore: true},
	}
}

var errPortfolioDisabled = apierr.NotFoundf("the portfolio is not served: the fleet was started without a registry (--registry, or --chains as a registry directory)").
	WithDetails("PORTFOLIO_DISABLED")

func (s *fleetServer) portfolio(h func(*http.Request) (any, error)) func(*http.Request) (any, error) {
	return func(r *http.Request) (any, error) {
		if s.cfg.Portfolio == nil {
			return nil, errPortfolioDisabled
		}
		return h(r)
	}
}

// portfolioChains are the chains a portfolio covers: every Initia chain of the registry
// (the L1 and the rollups) with a REST endpoint or a store, in registry order.
func portfolioChains(reg *registry.Registry) []*registry.Chain {
	var out []*registry.Chain
	for _, c := range reg.Chains {
		if c.IsInitia() && c.Type == registry.ChainTypeCosmos {
			out = append(out, c)
		}
	}
	return out
}

// minityName is a chain's name in Minity's routes and events: the registry's chain_name in
// lower case, which InterwovenKit matches against its registry (hooks.ts: chainInfoMap).
func minityName(c *registry.Chain) string { return strings.ToLower(c.Name) }

// minityChains: v1/supported-chains, types.ts SupportedChains (string[]).
func (s *fleetServer) minityChains(*http.Request) (any, error) {
	out := []string{}
	for _, c := range portfolioChains(s.cfg.Portfolio.Registry()) {
		out = append(out, minityName(c))
	}
	return out, nil
}

// minityPrices: v1/prices, types.ts Prices ([symbol, price][]): one entry per symbol with a
// current price, the L1's asset first when several chains list the symbol.
func (s *fleetServer) minityPrices(*http.Request) (any, error) {
	reg := s.cfg.Portfolio.Registry()
	out := [][2]any{}
	if s.cfg.Portfolio.Prices == nil {
		return out, nil
	}
	chains := slices.Clone(portfolioChains(reg))
	slices.SortStableFunc(chains, func(a, b *registry.Chain) int {
		switch {
		case a.L1 && !b.L1:
			return -1
		case b.L1 && !a.L1:
			return 1
		}
		return 0
	})
	seen := map[string]bool{}
	for _, c := range chains {
		for _, a := range c.Assets {
			sym := strings.ToUpper(a.Symbol)
			if sym == "" || seen[sym] {
				continue
			}
			if p := s.cfg.Portfolio.Prices.Lookup(reg, a); p.OK {
				seen[sym] = true
				out = append(out, [2]any{a.Symbol, price.Float(p.USD)})
			}
		}
	}
	return out, nil
}

// minityBalances: v1/chain/{name}/{address}/balances, types.ts Balance[].
func (s *fleetServer) minityBalances(r *http.Request) (any, error) {
	reg := s.cfg.Portfolio.Registry()
	name := strings.ToLower(r.PathValue("name"))
	i := slices.IndexFunc(portfolioChains(reg), func(c *registry.Chain) bool { return minityName(c) == name })
	if i < 0 {
		return nil, apierr.NotFoundf("unknown chain %q", clip(name)).WithDetails(ReasonUnknownChainName)
	}
	acc, err := portfolioAccount(r.PathValue("address"))
	if err != nil {
		return nil, err
	}
	ev := s.chainEvent(r.Context(), reg, portfolioChains(reg)[i], acc)
	if ev.Type == "error" {
		return nil, &apierr.Error{Code: apierr.Unavailable, Message: ev.Error, Details: []string{"CHAIN_UNAVAILABLE"}}
	}
	return ev.Balances, nil
}

// minityStream: v1/chain/all/{address}: one event per chain as each answers, then the stream
// ends (InterwovenKit closes its EventSource when the server does: sse.ts onerror).
func (s *fleetServer) minityStream(r *http.Request) (httpapi.Producer, error) {
	if s.cfg.Portfolio == nil {
		return nil, errPortfolioDisabled
	}
	acc, err := portfolioAccount(r.PathValue("address"))
	if err != nil {
		return nil, err
	}
	reg := s.cfg.Portfolio.Registry()
	chains := portfolioChains(reg)
	return func(st *httpapi.Stream) error {
		ctx := st.Context()
		events := make(chan MinityEvent)
		sem := make(chan struct{}, portfolioConcurrency)
		var wg sync.WaitGroup
		for _, c := range chains {
			wg.Go(func() {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				defer func() { <-sem }()
				ev := s.chainEvent(ctx, reg, c, acc)
				select {
				case events <- ev:
				case <-ctx.Done():
				}
			})
		}
		go func() { wg.Wait(); close(events) }()
		n := 0
		for ev := range events {
			b, _ := json.Marshal(ev)
			n++
			if err := st.Send(strconv.Itoa(n), "", b); err != nil {
				// The client went: the readers end with ctx; drain so they can.
				go func() {
					for range events {
					}
				}()
				return nil
			}
		}
		return nil
	}, nil
}

// portfolioAccount parses the address a wallet sends: bech32 of any prefix (init1…, the
// kit's) or 0x hex, 20 or 32 bytes.
func portfolioAccount(s string) ([]byte, error) {
	ls := strings.ToLower(s)
	prefix := "init"
	if i := strings.LastIndexByte(ls, '1'); i > 0 && !strings.HasPrefix(ls, "0x") {
		prefix = ls[:i]
	}
	b, err := parseAccount(prefix, ls)
	if err != nil {
		return nil, apierr.BadRequest("invalid address %q", clip(s)).WithDetails("INVALID_ADDRESS")
	}
	return b, nil
}

// chainEvent reads one chain's balances of acc within the chain timeout.
func (s *fleetServer) chainEvent(ctx context.Context, reg *registry.Registry, c *registry.Chain, acc []byte) MinityEvent {
	timeout := s.cfg.Portfolio.ChainTimeout
	if timeout <= 0 {
		timeout = DefaultChainTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ev := MinityEvent{Type: "balances", Chain: minityName(c), ChainID: c.ID}
	have, source, height, err := s.readBalances(ctx, c, acc)
	if err != nil {
		msg := redact.Text(err.Error())
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			msg = fmt.Sprintf("%s did not answer within %s", c.ID, timeout)
		}
		return MinityEvent{Type: "error", Chain: ev.Chain, ChainID: c.ID, Error: msg}
	}
	ev.Source, ev.Height = source, height
	ev.Balances = s.minityBalanceList(reg, c, have)
	return ev
}

// readBalances is the account's balances on c by registry denom: from the fleet's rich list
// when it keeps one for c, else from c's REST.
func (s *fleetServer) readBalances(ctx context.Context, c *registry.Chain, acc []byte) (map[string]string, string, int64, error) {
	for _, fc := range servingChains(s.cfg.Chains()) {
		if fc.ID != c.ID {
			continue
		}
		rr, ok := fc.Reader.(store.RichListReader)
		if !ok {
			break
		}
		bs, err := rr.Balances(ctx, acc)
		if err != nil {
			return nil, "", 0, err
		}
		if bs.Height == 0 {
			break // this chain runs without a rich list
		}
		out := make(map[string]string, len(bs.Balances))
		var evm map[string]string
		if vmkind.Kind(fc.VMType) == vmkind.EVM {
			if evm, err = s.evmDenoms(ctx, c, rr); err != nil {
				return nil, "", 0, err
			}
		}
		for _, b := range bs.Balances {
			d := b.Denom
			if rd, ok := evm[strings.ToLower(d)]; ok {
				d = rd
			}
			out[d] = b.Amount.String()
		}
		return out, "rich_list", bs.Height, nil
	}
	if s.cfg.Portfolio.REST == nil {
		return nil, "", 0, fmt.Errorf("no balance source for %s", c.ID)
	}
	addr, err := address.Bech32(c.Bech32Prefix, acc)
	if err != nil {
		return nil, "", 0, err
	}
	have, err := s.cfg.Portfolio.REST.Balances(ctx, c, addr)
	return have, "rest", 0, err
}

// evmDenoms maps the ERC-20 contracts a minievm rich list stores balances under (lowercase
// 0x…) to the registry's denoms: an evm/<hex> denom names its contract, any other is the
// rich list's alias of its contract (ingest: the bank denom, lowercased). The map is kept per
// chain until the chain's asset list changes; a denom without an alias yet (a token nobody
// has held) is asked again after evmAliasRetry.
func (s *fleetServer) evmDenoms(ctx context.Context, c *registry.Chain, rr store.RichListReader) (map[string]string, error) {
	s.evmMu.Lock()
	cached, ok := s.evmCache[c.ID]
	s.evmMu.Unlock()
	if ok && cached.assets == len(c.Assets) && (cached.complete || time.Since(cached.at) < evmAliasRetry) {
		return cached.denoms, nil
	}
	e := evmDenomMap{denoms: make(map[string]string, len(c.Assets)), assets: len(c.Assets), complete: true, at: time.Now()}
	for _, a := range c.Assets {
		if hexPart, ok := strings.CutPrefix(a.Denom, "evm/"); ok {
			e.denoms["0x"+strings.ToLower(hexPart)] = a.Denom
			continue
		}
		contract, err := rr.RichListAlias(ctx, strings.ToLower(a.Denom))
		if err != nil {
			return nil, err
		}
		if contract == "" {
			e.complete = false
			continue
		}
		e.denoms[strings.ToLower(contract)] = a.Denom
	}
	s.evmMu.Lock()
	if s.evmCache == nil {
		s.evmCache = map[string]evmDenomMap{}
	}
	s.evmCache[c.ID] = e
	s.evmMu.Unlock()
	return e.denoms, nil
}

// evmAliasRetry is how long a minievm chain's contract map missing a denom is kept.
const evmAliasRetry = time.Minute

// evmDenomMap is one minievm chain's rich-list contract → registry denom map.
type evmDenomMap struct {
	denoms   map[string]string
	assets   int  // len(Chain.Assets) it was built from
	complete bool // every asset's contract was known
	at       time.Time
}

// minityBalanceList renders non-zero balances: registry assets (by denom) first, then the
// denoms the registry does not describe.
func (s *fleetServer) minityBalanceList(reg *registry.Registry, c *registry.Chain, have map[string]string) []MinityBalance {
	denoms := make([]string, 0, len(have))
	for d, amt := range have {
		if amt != "" && amt != "0" {
			denoms = append(denoms, d)
		}
	}
	slices.SortFunc(denoms, func(a, b string) int {
		ka, kb := c.Asset(a) == nil, c.Asset(b) == nil
		if ka != kb {
			if ka {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	out := make([]MinityBalance, 0, len(denoms))
	for _, d := range denoms {
		amt := have[d]
		a := c.Asset(d)
		if a == nil {
			out = append(out, MinityBalance{Type: "unknown", Denom: d, Amount: amt})
			continue
		}
		dec := a.Decimals
		b := MinityBalance{Type: "asset", Denom: d, Symbol: a.Symbol, Amount: amt, Decimals: &dec}
		if n, ok := new(big.Int).SetString(amt, 10); ok {
			f := price.Float(new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil)))
			b.FormattedAmount = &f
		}
		if s.cfg.Portfolio.Prices != nil {
			if p := s.cfg.Portfolio.Prices.Lookup(reg, a); p.OK {
				if v, ok := price.Value(amt, dec, p.USD); ok {
					f := price.Float(v)
					b.Value = &f
				}
			}
		}
		out = append(out, b)
	}
	return out
}
