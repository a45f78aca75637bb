package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/httpx"
)

// BridgeInfo is what the L1 says about one OPinit bridge.
type BridgeInfo struct {
	ID                 uint64
	FinalizationPeriod time.Duration
}

// TokenPair is one (L1 denom, L2 denom) pair a bridge has carried.
type TokenPair struct {
	L1Denom, L2Denom string
}

// ChannelState is one channel end as the chain reports it.
type ChannelState struct {
	Port, ID                         string
	CounterpartyPort, CounterpartyID string
	State                            string
}

// Source reads live network facts from a chain's REST endpoints. The project's
// RESTSource implements it with the project's cosmosrest client.
type Source interface {
	Bridges(ctx context.Context, l1 *Chain) ([]BridgeInfo, error)
	TokenPairs(ctx context.Context, l1 *Chain, bridgeID uint64) ([]TokenPair, error)
	Channels(ctx context.Context, c *Chain) ([]ChannelState, error)
}

// Refresh returns a new registry with bridges, token pairs and channel states updated from
// the chains. Chains that cannot be reached keep their previous facts; their errors are
// joined into the returned error, which comes with a usable registry.
func (r *Registry) Refresh(ctx context.Context, src Source) (*Registry, error) {
	n := r.clone()
	var errs []error
	for _, l1 := range n.Chains {
		if !l1.L1 {
			continue
		}
		bridges, err := src.Bridges(ctx, l1)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s bridges: %w", l1.ID, err))
			continue
		}
		for _, b := range bridges {
			var l2 *Chain
			for _, c := range n.Chains {
				if c.BridgeID == b.ID {
					l2 = c
				}
			}
			if l2 == nil {
				continue
			}
			l2.OPFinalization, l2.OPFinalizationKnown = b.FinalizationPeriod, true
			pairs, err := src.TokenPairs(ctx, l1, b.ID)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s bridge %d token pairs: %w", l1.ID, b.ID, err))
				continue
			}
			for _, p := range pairs {
				if p.L2Denom != L2Denom(b.ID, p.L1Denom) || l2.Asset(p.L2Denom) != nil {
					continue
				}
				a := &Asset{ChainID: l2.ID, Denom: p.L2Denom, Path: p.L2Denom,
					OP: &OPTrace{BridgeID: b.ID, L1ChainID: l1.ID, L1Denom: p.L1Denom}}
				if l1a := l1.Asset(p.L1Denom); l1a != nil {
					a.Symbol, a.Name, a.Decimals, a.LogoURI, a.CoingeckoID = l1a.Symbol, l1a.Name, l1a.Decimals, l1a.LogoURI, l1a.CoingeckoID
				}
				l2.addAsset(a)
			}
		}
	}
	for _, c := range n.Chains {
		if c.Type != ChainTypeCosmos || len(c.Channels) == 0 {
			continue
		}
		states, err := src.Channels(ctx, c)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s channels: %w", c.ID, err))
			continue
		}
		for _, s := range states {
			for i := range c.Channels {
				ch := &c.Channels[i]
				if ch.ID == s.ID && ch.Port == s.Port {
					ch.State = s.State
					if s.CounterpartyID != "" {
						ch.CounterpartyID = s.CounterpartyID
					}
				}
			}
		}
	}
	for _, c := range n.Chains {
		for _, a := range slices.Concat(c.Assets, c.Unlisted) {
			resolveOrigin(n, a)
		}
	}
	return n, errors.Join(errs...)
}

func (c *Chain) addAsset(a *Asset) {
	c.assets[a.Denom] = a
	c.Assets = append(c.Assets, a)
	for i := len(c.Assets) - 1; i > 0 && c.Assets[i].Denom < c.Assets[i-1].Denom; i-- {
		c.Assets[i], c.Assets[i-1] = c.Assets[i-1], c.Assets[i]
	}
}

// clone copies everything Refresh may change; assets are copied too because their origin
// is re-resolved.
func (r *Registry) clone() *Registry {
	n := &Registry{byID: map[string]*Chain{}, byName: map[string]*Chain{}}
	for _, c := range r.Chains {
		cc := *c
		cc.Channels = append([]Channel(nil), c.Channels...)
		cc.Assets = make([]*Asset, len(c.Assets))
		cc.assets = make(map[string]*Asset, len(c.assets))
		for i, a := range c.Assets {
			ac := *a
			cc.Assets[i] = &ac
		}
		cc.Unlisted = make([]*Asset, len(c.Unlisted))
		for i, a := range c.Unlisted {
			ac := *a
			cc.Unlisted[i] = &ac
		}
		for k, a := range c.assets {
			for _, ac := range slices.Concat(cc.Assets, cc.Unlisted) {
				if ac.Denom == a.Denom {
					cc.assets[k] = ac
					break
				}
			}
		}
		n.Chains = append(n.Chains, &cc)
		n.byID[cc.ID] = &cc
		n.byName[cc.Name] = &cc
	}
	return n
}

// Live holds the current registry snapshot and swaps in refreshed ones.
type Live struct {
	cur atomic.Pointer[Registry]
}

// NewLive starts from r.
func NewLive(r *Registry) *Live {
	l := &Live{}
	l.cur.Store(r)
	return l
}

// Current is the snapshot to use for one request.
func (l *Live) Current() *Registry { return l.cur.Load() }

// Refresh refreshes the current snapshot once and swaps the result in (even when some
// chains failed, their facts are kept).
func (l *Live) Refresh(ctx context.Context, src Source) error {
	n, err := l.Current().Refresh(ctx, src)
	l.cur.Store(n)
	return err
}

// Summary counts what a snapshot offers: chains, assets, usable ICS-20 channels and rollups
// whose bridge finalization period is known.
type Summary struct {
	Chains, Assets, OpenChannels, KnownBridges int
}

// Summary summarises the snapshot.
func (r *Registry) Summary() Summary {
	s := Summary{Chains: len(r.Chains)}
	for _, c := range r.Chains {
		s.Assets += len(c.Assets)
		for _, ch := range c.Channels {
			if ch.Usable() {
				s.OpenChannels++
			}
		}
		if c.OPFinalizationKnown {
			s.KnownBridges++
		}
	}
	return s
}

// Run refreshes at once and then every interval until ctx ends. It logs at info what a
// refresh changed (the first one always), a failure at warn when it is new or differs from
// the last one, and the rest at debug: a router left alone for days says little.
func (l *Live) Run(ctx context.Context, src Source, every time.Duration, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var last Summary
	lastErr := ""
	for first := true; ; first = false {
		err := l.Refresh(ctx, src)
		if ctx.Err() != nil {
			return
		}
		sum := l.Current().Summary()
		attrs := []any{"chains", sum.Chains, "assets", sum.Assets, "open_channels", sum.OpenChannels, "known_bridges", sum.KnownBridges}
		if first || sum != last {
			log.Info("registry refreshed", attrs...)
		} else {
			log.Debug("registry refreshed", attrs...)
		}
		last = sum
		switch {
		case err != nil && err.Error() != lastErr:
			log.Warn("registry refresh incomplete: those chains keep their previous facts", "err", err)
			lastErr = err.Error()
		case err != nil:
			log.Debug("registry refresh incomplete", "err", err)
		case lastErr != "":
			log.Info("registry refresh complete again")
			lastErr = ""
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RESTSource is the Source over the chains' Cosmos REST gateways (the first `apis.rest`
// entries, comma-joined for the client's URL rotation), one cosmosrest client per chain.
type RESTSource struct {
	// Options configure every client (timeouts, retries, transport).
	Options []httpx.Option

	mu      sync.Mutex
	clients map[string]*cosmosrest.Client
}

func (s *RESTSource) client(c *Chain) (*cosmosrest.Client, error) {
	if len(c.REST) == 0 {
		return nil, fmt.Errorf("%s has no rest endpoint", c.ID)
	}
	key := strings.Join(c.REST, ",")
	s.mu.Lock()
	defer s.mu.Unlock()
	if cl, ok := s.clients[key]; ok {
		return cl, nil
	}
	cl, err := cosmosrest.New(key, s.Options...)
	if err != nil {
		return nil, fmt.Errorf("%s rest client: %w", c.ID, err)
	}
	if s.clients == nil {
		s.clients = map[string]*cosmosrest.Client{}
	}
	s.clients[key] = cl
	return cl, nil
}

// Bridges reads the L1's OPinit bridges and their finalization periods.
func (s *RESTSource) Bridges(ctx context.Context, l1 *Chain) ([]BridgeInfo, error) {
	cl, err := s.client(l1)
	if err != nil {
		return nil, err
	}
	bridges, err := cl.Bridges(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]BridgeInfo, 0, len(bridges))
	for _, b := range bridges {
		var cfg struct {
			FinalizationPeriod string `json:"finalization_period"`
		}
		_ = json.Unmarshal(b.BridgeConfig, &cfg)
		d, _ := time.ParseDuration(cfg.FinalizationPeriod)
		out = append(out, BridgeInfo{ID: b.BridgeID, FinalizationPeriod: d})
	}
	return out, nil
}

// TokenPairs reads one bridge's token pairs from the L1.
func (s *RESTSource) TokenPairs(ctx context.Context, l1 *Chain, bridgeID uint64) ([]TokenPair, error) {
	cl, err := s.client(l1)
	if err != nil {
		return nil, err
	}
	pairs, err := cl.TokenPairs(ctx, bridgeID)
	if err != nil {
		return nil, err
	}
	out := make([]TokenPair, 0, len(pairs))
	for _, p := range pairs {
		out = append(out, TokenPair{L1Denom: p.L1Denom, L2Denom: p.L2Denom})
	}
	return out, nil
}

// Channels reads the chain's IBC channel ends.
func (s *RESTSource) Channels(ctx context.Context, c *Chain) ([]ChannelState, error) {
	cl, err := s.client(c)
	if err != nil {
		return nil, err
	}
	chans, err := cl.Channels(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ChannelState, 0, len(chans))
	for _, ch := range chans {
		out = append(out, ChannelState{Port: ch.PortID, ID: ch.ChannelID, CounterpartyPort: ch.Counterparty.PortID,
			CounterpartyID: ch.Counterparty.ChannelID, State: ch.State})
	}
	return out, nil
}
