package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
)

// routerConfig is everything `rollgate router` needs; `up` fills one for the devnet.
type routerConfig struct {
	Registry    string        // initia-registry layout directory
	Listen      string        // host:port
	Refresh     time.Duration // 0 disables refreshing from the chains
	RouteConfig string        // optional JSON file with route.Config (durations, fees)
	MultiTx     bool          // default of allow_multi_tx when a request omits it
	TrackDB     string        // transfer tracker store DSN; "off" disables /v2/tx/track|status|submit
	TrackKeep   time.Duration // bridge events older than this are pruned (track.Store.PruneEvents); 0 keeps all
	TrackRebase string        // comma-separated chain ids whose scan is forgotten at start (track.Store.Rebase)
	CORS        corsFlags
	Streams     streamFlags
	AccessLog   bool // one info line per request
	Prices      priceFlags
	prices      *price.Service // a running service to use instead of starting one (up's, shared with the fleet)
	// StreamCaps, when set, counts the router's streams with other APIs of the process (up's
	// indexers): Streams' bounds are then the caps'.
	StreamCaps *httpapi.StreamCaps
}

func (c *routerConfig) register(f *flags) {
	f.String(&c.Registry, "registry", "", "registry directory in the initia-registry layout (required)", "ROLLGATE_REGISTRY", "ROUTER_REGISTRY")
	f.String(&c.Listen, "listen", "", "listen address (default :$PORT, :8090)", "ROLLGATE_LISTEN", "LISTEN_ADDR")
	f.Duration(&c.Refresh, "refresh", 30*time.Second, "how often bridges, token pairs and channels are re-read from the chains (0: never)", "ROLLGATE_REFRESH", "ROUTER_REFRESH")
	f.String(&c.RouteConfig, "route-config", "", "JSON file of route estimates: durations, LayerZero fees (optional)", "ROLLGATE_ROUTE_CONFIG", "ROUTER_ROUTE_CONFIG")
	f.Bool(&c.MultiTx, "allow-multi-tx-default", false, "allow_multi_tx when a request omits it (Skip's default is false)", "ROLLGATE_ALLOW_MULTI_TX_DEFAULT", "ROUTER_ALLOW_MULTI_TX")
	f.String(&c.TrackDB, "track-db", "sqlite:.rollgate/router-track.db", "transfer tracker store: sqlite:<path> or postgres://… (replicas may share one PostgreSQL); off disables tracking", "ROLLGATE_TRACK_DB", "ROUTER_TRACK_DB")
	f.String(&c.TrackRebase, "track-rebase", "", "comma-separated chain ids whose tracking is started afresh on the chain their node serves now (the recovery from CHAIN_MISMATCH: their stored scan and events are dropped)", "ROLLGATE_TRACK_REBASE", "ROUTER_TRACK_REBASE")
	f.Duration(&c.TrackKeep, "track-keep-events", 0, "prune the tracker's bridge events older than this (never those a transfer in flight may need); 0 keeps all", "ROLLGATE_TRACK_KEEP_EVENTS", "ROUTER_TRACK_KEEP_EVENTS")
	c.CORS.register(f)
	c.Streams.register(f)
	c.Prices.register(f)
	f.Bool(&c.AccessLog, "access-log", false, "log one line per request (method, path, status, bytes, duration)", "ROLLGATE_ACCESS_LOG", "ROUTER_ACCESS_LOG")
}

func (c *routerConfig) validate(env *Env) error {
	if c.Registry == "" {
		return usagef("--registry (ROLLGATE_REGISTRY) is required")
	}
	if err := c.CORS.validate(); err != nil {
		return err
	}
	if err := c.Streams.validate(); err != nil {
		return err
	}
	if err := c.Prices.validate(env); err != nil {
		return err
	}
	c.Listen = listenAddr(env, c.Listen, "8090")
	return nil
}

func runRouter(ctx context.Context, env *Env, args []string) error {
	var cfg routerConfig
	log, err := parseServer(env, "router", args, &cfg)
	if err != nil {
		return err
	}
	return runServer(ctx, cfg.Listen,
		func(g *group, ln net.Listener) error { return startRouter(g, cfg, ln, log) },
		func(url string) { log.Info("router started", "url", url, "registry", cfg.Registry) },
		func() { log.Info("router stopped") })
}

// startTracker opens the tracker's store and runs the tracker in g; the store closes when g ends.
func startTracker(g *group, dsn string, keep time.Duration, rebase string, live *registry.Live, log *slog.Logger) (*track.Tracker, error) {
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		if dir := filepath.Dir(strings.TrimPrefix(path, "//")); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
		}
	}
	// A database that drops the session or is not up yet is retried until shutdown.
	st, err := track.OpenStoreLog(g.ctx, dsn, log.With("component", "tracker"))
	if err != nil {
		return nil, err
	}
	for _, id := range strings.Split(rebase, ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		n, err := st.Rebase(g.ctx, id)
		if err != nil && !errors.Is(err, track.ErrNotScanned) {
			st.Close()
			return nil, err
		}
		log.Warn("tracker: chain re-based: its scan starts afresh on the chain its node serves", "component", "tracker", "chain_id", id, "events_dropped", n, "err", err)
	}
	tr := track.New(st, live, track.Config{Log: log.With("component", "tracker")})
	if keep > 0 {
		// Stopped with the group; a prune cut short by the store closing is not logged.
		g.Go(func(ctx context.Context) error {
			st.RunPruner(ctx, keep, trackPruneInterval, log.With("component", "tracker"))
			return ctx.Err()
		})
	}
	g.Go(func(ctx context.Context) error {
		defer st.Close()
		err := tr.Run(ctx)
		if err != nil && ctx.Err() == nil {
			// Only a permanent store error ends Run early (transient ones are retried): the
			// router stops with it rather than serve statuses that no longer advance.
			log.Error("tracker stopped", "err", err)
			return fmt.Errorf("tracker: %w", err)
		}
		if err != nil {
			log.Warn("tracker stop", "err", err)
		}
		return ctx.Err()
	})
	return tr, nil
}

// startRouter loads the registry and adds the router API (and its refresher) to g.
// trackPruneInterval is how often the tracker's old events are pruned.
var trackPruneInterval = time.Minute

func startRouter(g *group, cfg routerConfig, ln net.Listener, log *slog.Logger) error {
	// Entries the loader cannot use are skipped, each with one warning on this logger.
	reg, err := registry.LoadLogged(cfg.Registry, log.With("component", "registry"))
	if err != nil {
		return fmt.Errorf("load registry: %w", err)
	}
	sum := reg.Summary()
	log.Info("registry loaded", "dir", cfg.Registry, "chains", sum.Chains, "assets", sum.Assets, "open_channels", sum.OpenChannels)
	acfg := api.Config{Balances: &registry.RESTBalances{}, CORS: cfg.CORS.config(), Streams: cfg.Streams.options(),
		LZQuotes: &msgs.ChainLZQuoter{}}
	acfg.Streams.Caps = cfg.StreamCaps
	if cfg.RouteConfig != "" {
		b, err := os.ReadFile(cfg.RouteConfig)
		if err != nil {
			return err
		}
		// Strict: a misspelt key, or the swap venues this router no longer takes, is an
		// error rather than a silently ignored setting.
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&acfg.Route); err != nil {
			return fmt.Errorf("route config %s: %w", cfg.RouteConfig, err)
		}
	}
	acfg.Route.DefaultAllowMultiTx = acfg.Route.DefaultAllowMultiTx || cfg.MultiTx
	live := registry.NewLive(reg)
	prom := prometheus.NewRegistry()
	prom.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if cfg.TrackDB != "" && cfg.TrackDB != "off" {
		tr, err := startTracker(g, cfg.TrackDB, cfg.TrackKeep, cfg.TrackRebase, live, log)
		if err != nil {
			return err
		}
		if err := tr.Register(prom); err != nil {
			return err
		}
		acfg.Tracker = tr
	}
	if acfg.Prices = cfg.prices; acfg.Prices == nil {
		if acfg.Prices, err = startPrices(g, cfg.Prices, live.Current, log); err != nil {
			return err
		}
	}
	if acfg.Prices != nil {
		if err := acfg.Prices.Register(prom, "rollgate_router"); err != nil {
			return err
		}
	}
	h := api.New(acfg, live, log, prom)
	if cfg.Refresh > 0 {
		g.Go(func(ctx context.Context) error {
			live.Run(ctx, &registry.RESTSource{}, cfg.Refresh, log)
			return ctx.Err()
		})
	}
	if cfg.AccessLog {
		h = accessLog(h, log)
	}
	g.Go(func(ctx context.Context) error { return httpapi.Serve(ctx, ln, h, log) })
	return nil
}
