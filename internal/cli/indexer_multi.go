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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/fleet"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// multiConfig is `rollgate indexer --chains`: many chains in one process (internal/indexer/fleet).
type multiConfig struct {
	Chains     string
	Reload     time.Duration
	Listen     string
	DB         string
	PoolConns  int
	MaxConns   int
	Budget     int
	CacheMB    int
	Ingest     ingest.Config
	CORS       corsFlags
	AccessLog  bool
	MaxReplica time.Duration
	Streams    streamFlags
	BuildInfo  Build
	Mode       string // all or api
	Leases     bool
	Lease      time.Duration
	Owner      string
	Hosts      string // host=chain_id,…
	// Registry is the registry directory of the portfolio routes (Minity's shapes under
	// /minity); default --chains when it is a directory, none with a JSON chains file.
	Registry string
	// registryImplied: Registry is --chains, not asked for; a directory the router's registry
	// loader cannot read then disables the portfolio (a warning) instead of the start.
	registryImplied bool
	Prices          priceFlags
}

// multiChain says whether `rollgate indexer` was asked for many chains: --chains given, or
// INDEXER_CHAINS set.
func multiChain(env *Env, args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "chains" {
			return true
		}
	}
	return env.Getenv("INDEXER_CHAINS") != ""
}

func (c *multiConfig) register(f *flags) {
	f.String(&c.Chains, "chains", "", "many chains in one process: a registry directory (initia-registry layout; its rollups) or a JSON chains file", "INDEXER_CHAINS")
	f.Duration(&c.Reload, "chains-reload", 30*time.Second, "how often --chains is read again: chains added start, removed ones stop (0: never)", "INDEXER_CHAINS_RELOAD")
	f.String(&c.Listen, "listen", "", "API listen address (default :$PORT, :8080); each chain under /{chain_id}/", "LISTEN_ADDR")
	f.String(&c.DB, "db", "sqlite:.rollgate/chains", "store: sqlite:<dir> (a file per chain) or postgres://... (a schema per chain)", "DB_DSN")
	f.Int(&c.PoolConns, "pool-conns", 4, "PostgreSQL connections per chain", "INDEXER_POOL_CONNS")
	f.Int(&c.MaxConns, "max-requests", 16, "upstream requests in flight per chain", "MAX_CONCURRENT_REQUESTS")
	f.Int(&c.Budget, "upstream-budget", 64, "upstream requests in flight over every chain, shared in turn (0: no shared bound)", "INDEXER_UPSTREAM_BUDGET")
	f.Int(&c.CacheMB, "response-cache-mb", 8, "MiB of answers kept in memory per chain (0: off)", "RESPONSE_CACHE_MB")
	f.Bool(&c.Ingest.RichList, "rich-list", true, "keep each chain's rich list (a chain of the JSON file may say otherwise)", "RICH_LIST")
	f.Bool(&c.Ingest.LocalTxJSON, "local-tx-json", false, "render tx JSON from block bytes instead of asking REST for it", "LOCAL_TX_JSON")
	f.Int(&c.Ingest.Concurrency, "concurrency", 4, "heights fetched at once per chain", "INGEST_CONCURRENCY")
	f.String(&c.Ingest.OnChainMismatch, "on-chain-mismatch", ingest.OnMismatchHalt, "when a node serves another chain than its store holds: halt that chain (the others go on) or reindex it from the new chain's first height", "ROLLGATE_ON_CHAIN_MISMATCH")
	f.Int64(&c.Ingest.ReadyMaxLag, "ready-max-lag", 20, "/readyz: most blocks behind the chain tip still ready", "READY_MAX_LAG")
	f.Duration(&c.Ingest.ReadyStaleAfter, "ready-stale-after", 30*time.Second, "/readyz: unready after the chain goes this long unanswered", "READY_STALE_AFTER")
	f.Duration(&c.MaxReplica, "ready-max-replica-lag", 30*time.Second, "/readyz: unready while the PostgreSQL hot standby replays more than this behind (0: off)", "READY_MAX_REPLICA_LAG")
	f.Bool(&c.AccessLog, "access-log", false, "log one line per API request", "ACCESS_LOG")
	f.String(&c.Hosts, "chain-hosts", "", "Host headers served as one chain's API at the root: host=chain_id, comma-separated", "INDEXER_CHAIN_HOSTS")
	f.String(&c.Mode, "mode", "all", "all (ingest and serve) or api (serve every chain, ingest none)", "INDEXER_MODE")
	f.Bool(&c.Leases, "leases", false, "share the chains with other writer processes on the same PostgreSQL by leases (each chain one writer)", "INDEXER_LEASES")
	f.Duration(&c.Lease, "lease", 15*time.Second, "with --leases: how long a lease lasts unrenewed (a dead writer's chains resume elsewhere within lease + lease/3)", "INDEXER_LEASE")
	f.String(&c.Owner, "lease-owner", "", "with --leases: this process's name in the lease table (default host-pid-random)", "INDEXER_LEASE_OWNER")
	f.String(&c.Registry, "registry", "", "registry directory (initia-registry layout) of the portfolio routes under /minity: symbols, decimals, the L1 (default: --chains when it is a directory)", "INDEXER_REGISTRY")
	c.Prices.register(f)
	c.CORS.register(f)
	c.Streams.register(f)
}

// usage makes -h list both forms of `rollgate indexer`: whichever is asked for, a reader of
// one chain's flags learns that --chains exists and what it takes.
func (c *multiConfig) usage(env *Env, f *flags) { f.Usage = indexerUsage(env, f, true) }

// usage: see multiConfig.usage.
func (c *indexerConfig) usage(env *Env, f *flags) { f.Usage = indexerUsage(env, f, false) }

// indexerUsage prints the flags of the form parsed (f), then the other form's.
func indexerUsage(env *Env, f *flags, multi bool) func() {
	return func() {
		other := newFlags(env, "indexer")
		var lg logging
		one, many := "rollgate indexer [flags]  (one chain)", "rollgate indexer --chains <registry dir | chains.json> [flags]  (many chains in one process)"
		if multi {
			var ic indexerConfig
			ic.register(other)
			one, many = many, one
		} else {
			var mc multiConfig
			mc.register(other)
		}
		lg.register(other)
		out := f.Output()
		fmt.Fprintf(out, "Usage: %s\n", one)
		f.PrintDefaults()
		fmt.Fprintf(out, "\nUsage: %s\n", many)
		other.PrintDefaults()
	}
}

func (c *multiConfig) validate(env *Env) error {
	if c.Chains == "" {
		return usagef("--chains (INDEXER_CHAINS) is required")
	}
	if _, err := os.Stat(c.Chains); err != nil {
		return usagef("--chains: %v", err)
	}
	if err := c.CORS.validate(); err != nil {
		return err
	}
	if err := c.Streams.validate(); err != nil {
		return err
	}
	c.Listen = listenAddr(env, c.Listen, "8080")
	if c.Reload == 0 {
		c.Reload = -1
	}
	for _, kv := range splitList(c.Hosts) {
		if h, id, ok := strings.Cut(kv, "="); !ok || h == "" || id == "" {
			return usagef("--chain-hosts: want host=chain_id, not %q", kv)
		}
	}
	if c.Ingest.OnChainMismatch != ingest.OnMismatchHalt && c.Ingest.OnChainMismatch != ingest.OnMismatchReindex {
		return usagef("--on-chain-mismatch (ROLLGATE_ON_CHAIN_MISMATCH) must be halt or reindex, not %q", c.Ingest.OnChainMismatch)
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

func (c *multiConfig) fleetConfig(log *slog.Logger, reg *prometheus.Registry) fleet.Config {
	// The stream caps are the process's, over every chain's API.
	streams := c.Streams.options()
	streams.Caps = httpapi.NewStreamCaps(streams.MaxSubscribers, streams.MaxPerIP)
	return fleet.Config{
		Chains: c.Chains, Reload: c.Reload, DB: c.DB, PoolConns: c.PoolConns,
		Ingest: c.Ingest, MaxConns: c.MaxConns, Budget: c.Budget,
		API: api.Config{Version: c.BuildInfo.Version, CommitHash: c.BuildInfo.Commit, CORS: c.CORS.config(),
			CacheBytes: cacheBytes(c.CacheMB), MaxReplicaLag: c.MaxReplica, Streams: streams},
		Log: log, Registry: reg,
		ReadOnly: c.Mode == "api", Leases: c.Leases, Lease: c.Lease, Owner: c.Owner, Hosts: c.hostMap(),
	}
}

func (c *multiConfig) hostMap() map[string]string {
	m := map[string]string{}
	for _, kv := range splitList(c.Hosts) {
		h, id, _ := strings.Cut(kv, "=")
		m[strings.TrimSpace(h)] = strings.TrimSpace(id)
	}
	return m
}

func runIndexerMulti(ctx context.Context, env *Env, args []string) error {
	var cfg multiConfig
	log, err := parseServer(env, "indexer", args, &cfg)
	if err != nil {
		return err
	}
	cfg.BuildInfo = env.Build
	return runServer(ctx, cfg.Listen,
		func(g *group, ln net.Listener) error {
			_, err := startFleet(g, cfg, ln, log)
			return err
		},
		func(url string) { log.Info("indexer started", "chains", cfg.Chains, "url", url) },
		func() { log.Info("indexer stopped") })
}

// startFleet adds the fleet and its listener's server to g.
func startFleet(g *group, cfg multiConfig, ln net.Listener, log *slog.Logger) (*fleet.Fleet, error) {
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
