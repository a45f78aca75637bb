package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// routerConfig is everything `rollgate router` needs; `up` fills one for the devnet.
type routerConfig struct {
	Registry    string        // initia-registry layout directory
	Listen      string        // host:port
	Refresh     time.Duration // 0 disables refreshing from the chains
	RouteConfig string        // optional JSON file with route.Config (durations, fees)
	MultiTx     bool          // default of allow_multi_tx when a request omits it
}

func (c *routerConfig) register(f *flags) {
	f.String(&c.Registry, "registry", "", "registry directory in the initia-registry layout (required)", "ROUTER_REGISTRY")
	f.String(&c.Listen, "listen", "", "listen address (default :$PORT, :8090)", "LISTEN_ADDR")
	f.Duration(&c.Refresh, "refresh", 30*time.Second, "how often bridges, token pairs and channels are re-read from the chains (0: never)", "ROUTER_REFRESH")
	f.String(&c.RouteConfig, "route-config", "", "JSON file of route estimates: durations, LayerZero fees (optional)", "ROUTER_ROUTE_CONFIG")
	f.Bool(&c.MultiTx, "allow-multi-tx-default", false, "allow_multi_tx when a request omits it (Skip's default is false)", "ROUTER_ALLOW_MULTI_TX")
}

func runRouter(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "router")
	var cfg routerConfig
	var lg logging
	cfg.register(f)
	lg.register(f)
	if err := f.parse(args); err != nil {
		return err
	}
	if cfg.Registry == "" {
		return usagef("--registry (ROUTER_REGISTRY) is required")
	}
	if cfg.Listen == "" {
		port := env.Getenv("PORT")
		if port == "" {
			port = "8090"
		}
		cfg.Listen = ":" + port
	}
	log, err := lg.logger(env.Stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return err
	}
	g := newGroup(ctx)
	if err := startRouter(g, cfg, ln, log); err != nil {
		ln.Close()
		return err
	}
	log.Info("router started", "url", "http://"+ln.Addr().String(), "registry", cfg.Registry)
	return g.Wait()
}

// startRouter loads the registry and adds the router API (and its refresher) to g.
func startRouter(g *group, cfg routerConfig, ln net.Listener, log *slog.Logger) error {
	reg, err := registry.Load(cfg.Registry)
	if err != nil {
		return fmt.Errorf("load registry: %w", err)
	}
	acfg := api.Config{Balances: &registry.RESTBalances{}}
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
	h := api.New(acfg, live, log, prom)
	if cfg.Refresh > 0 {
		g.Go(func(ctx context.Context) error {
			src := &registry.RESTSource{}
			if err := live.Refresh(ctx, src); err != nil {
				log.Warn("registry refresh", "err", err)
			}
			live.Run(ctx, src, cfg.Refresh, log)
			return ctx.Err()
		})
	}
	g.Go(func(ctx context.Context) error { return serve(ctx, ln, h) })
	return nil
}
