package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/fleet"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// validateMany checks the settings of many chains (--chains).
func (c *indexerConfig) validateMany(env *Env) error {
	if _, err := os.Stat(c.Chains); err != nil {
		return usagef("--chains: %v", err)
	}
	if c.Reload == 0 {
		c.Reload = -1
	}
	for _, kv := range splitList(c.Hosts) {
		if h, id, ok := strings.Cut(kv, "="); !ok || h == "" || id == "" {
			return usagef("--chain-hosts: want host=chain_id, not %q", kv)
		}
	}
	if c.Mode != "all" && c.Mode != "api" {
		return usagef("--mode with --chains must be all or api, not %q", c.Mode)
	}
	if c.Leases && !strings.HasPrefix(c.DB, "postgres://") && !strings.HasPrefix(c.DB, "postgresql://") {
		return usagef("--leases needs a PostgreSQL --db")
	}
	if c.Registry == "" {
		if st, err := os.Stat(c.Chains); err == nil && st.IsDir() {
			c.Registry, c.registryImplied = c.Chains, true
		}
	}
	return c.Prices.validate(env)
}

func (c *indexerConfig) fleetConfig(log *slog.Logger, reg *prometheus.Registry) fleet.Config {
	// The stream caps are the process's, over every chain's API.
	streams := c.Streams.options()
	streams.Caps = httpapi.NewStreamCaps(streams.MaxSubscribers, streams.MaxPerIP)
	return fleet.Config{
		Chains: c.Chains, Reload: c.Reload, DB: c.DB, PoolConns: c.PoolConns,
		Ingest: c.Ingest, MaxConns: c.MaxConns, Budget: c.Budget,
		API: api.Config{Version: c.BuildInfo.Version, CommitHash: c.BuildInfo.Commit, CORS: c.CORS.config(),
			CacheBytes: cacheBytes(c.CacheMB), MaxReplicaLag: c.MaxReplicaLag, Streams: streams},
		Log: log, Registry: reg,
		ReadOnly: c.Mode == "api", Leases: c.Leases, Lease: c.Lease, Owner: c.Owner, Hosts: c.hostMap(),
	}
}

func (c *indexerConfig) hostMap() map[string]string {
	m := map[string]string{}
	for _, kv := range splitList(c.Hosts) {
		h, id, _ := strings.Cut(kv, "=")
		m[strings.TrimSpace(h)] = strings.TrimSpace(id)
	}
	return m
}

// runIndexerMulti runs `rollgate indexer --chains`: many chains in one process.
func runIndexerMulti(ctx context.Context, cfg indexerConfig, log *slog.Logger) error {
	return runServer(ctx, cfg.Listen,
		func(g *group, ln net.Listener) error {
			_, err := startFleet(g, cfg, ln, log)
			return err
		},
		func(url string) { log.Info("indexer started", "chains", cfg.Chains, "url", url) },
		func() { log.Info("indexer stopped") })
}

// startFleet adds the fleet and its listener's server to g.
func startFleet(g *group, cfg indexerConfig, ln net.Listener, log *slog.Logger) (*fleet.Fleet, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if strings.HasPrefix(cfg.DB, "sqlite:") && cfg.Mode != "api" {
		if err := os.MkdirAll(strings.TrimPrefix(strings.TrimPrefix(cfg.DB, "sqlite:"), "//"), 0o755); err != nil {
			return nil, err
		}
	}
	fcfg := cfg.fleetConfig(log, reg)
	var r *registry.Registry
	if cfg.Registry != "" {
		rlog := log.With("component", "registry")
		if cfg.registryImplied {
			rlog = slog.New(slog.DiscardHandler) // its skipped entries are the fleet's business
		}
		var err error
		if r, err = registry.LoadLogged(cfg.Registry, rlog); err != nil {
			if !cfg.registryImplied {
				return nil, fmt.Errorf("portfolio registry: %w", err)
			}
			log.Warn("no portfolio (/minity): --chains is not a registry the router could use; give --registry", "err", err)
			r = nil
		}
	}
	if r != nil {
		get := func() *registry.Registry { return r }
		prices, err := startPrices(g, cfg.Prices, get, log)
		if err != nil {
			return nil, err
		}
		if prices != nil {
			if err := prices.Register(reg, "rollgate_indexer_fleet"); err != nil {
				return nil, err
			}
		}
		fcfg.Portfolio = &api.PortfolioConfig{Registry: get, Prices: prices, REST: &registry.RESTBalances{}}
	}
	fl, err := fleet.New(fcfg)
	if err != nil {
		return nil, err
	}
	g.Go(fl.Run)
	var handler http.Handler = fl
	if cfg.AccessLog {
		handler = accessLog(handler, log)
	}
	g.Go(func(ctx context.Context) error { return httpapi.Serve(ctx, ln, handler, log) })
	return fl, nil
}

// upFleet is the one indexer process `rollgate up` runs its rollups in: each rollup keeps its
// own listener (the URL table's), which routes into the fleet and serves that chain's API at
// its root, as a single-chain indexer did.
type upFleet struct {
	g         *group
	log       *slog.Logger
	caps      *httpapi.StreamCaps // shared with the router
	f         *fleet.Fleet
	specs     []fleet.Chain
	portfolio *api.PortfolioConfig // Minity's routes over every devnet chain
}

// add starts the rollup ic describes (up's own per-rollup config, so its defaults and
// overrides hold) in the fleet, created with the first one's settings, and serves it on ln.
func (u *upFleet) add(ic indexerConfig, ln net.Listener) error {
	if u.f == nil {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		dir, ok := strings.CutPrefix(ic.DB, "sqlite:")
		if !ok {
			return usagef("up's stores are SQLite files, not %q", ic.DB)
		}
		f, err := fleet.New(fleet.Config{
			Source: func() ([]fleet.Chain, error) { return u.specs, nil },
			Reload: -1, DB: "sqlite:" + filepath.Dir(dir), Ingest: ic.Ingest, MaxConns: ic.MaxConns,
			RetainHeights: ic.RetainHeights, PruneEvery: pruneInterval,
			API: api.Config{Version: ic.BuildInfo.Version, CommitHash: ic.BuildInfo.Commit, CORS: ic.CORS.config(),
				CacheBytes: cacheBytes(ic.CacheMB), MaxReplicaLag: ic.MaxReplicaLag, Streams: httpapi.StreamOptions{Caps: u.caps}},
			Log: u.log.With("component", "indexer"), Registry: reg, Portfolio: u.portfolio,
		})
		if err != nil {
			return err
		}
		if err := f.Start(u.g.ctx); err != nil {
			return err
		}
		u.f = f
		u.g.Go(f.Run)
	}
	rl, itx := ic.Ingest.RichList, ic.internalTx
	u.specs = append(u.specs, fleet.Chain{ID: ic.Ingest.ChainID, VMType: ic.Ingest.VMType, AccountPrefix: ic.Ingest.AccountPrefix,
		RPC: ic.RPC, REST: ic.REST, JSONRPC: ic.JSONRPC, RichList: &rl, InternalTx: &itx, StartHeight: ic.Ingest.StartHeight})
	if err := u.f.Reload(); err != nil {
		return err
	}
	h := u.f.ChainWithViews(ic.Ingest.ChainID)
	if ic.AccessLog {
		h = accessLog(h, u.log.With(ic.LogContext...))
	}
	u.g.Go(func(ctx context.Context) error { return httpapi.Serve(ctx, ln, h, u.log) })
	return nil
}
