package fleet

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/reach"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/tick"
)

// Config configures a fleet. Ingest and API are templates: every chain gets them with its own
// chain id, VM type, prefix and start height.
type Config struct {
	// Chains is the registry directory or JSON file Load reads.
	Chains string
	// Source, when set, gives the chain set instead of Chains (`rollgate up`: its rollups).
	Source func() ([]Chain, error)
	// Reload is how often Chains is read again; default 30 s, negative: never.
	Reload time.Duration
	// DB is "sqlite:<dir>" (one file per chain) or a PostgreSQL DSN (one schema per chain).
	DB string
	// PoolConns bounds each chain's PostgreSQL pool (pool_max_conns); default 4.
	PoolConns int
	Ingest    ingest.Config
	API       api.Config
	// RetainHeights > 0 keeps each chain's newest RetainHeights heights (store.DB.Prune, every
	// PruneEvery, default 10 s); 0 keeps all.
	RetainHeights int64
	PruneEvery    time.Duration
	// MaxConns caps one chain's upstream requests in flight (per endpoint kind), Budget the
	// whole fleet's; 0: no cap, no shared budget.
	MaxConns, Budget int
	// HTTP are extra options of every upstream client (tests: short timeouts).
	HTTP []httpx.Option
	// Reach tunes each chain's upstream watch (package reach: when an outage is logged, and
	// its summaries); zero values take its defaults (tests: a short grace).
	Reach reach.Options
	// RestartMin and RestartMax bound the backoff before a failed chain's pipeline or store is
	// tried again; defaults 1 s and 1 min.
	RestartMin, RestartMax time.Duration
	Log                    *slog.Logger
	// ReadOnly serves every chain's API from the stores and ingests nothing (API processes
	// beside the writers): stores are opened with store.OpenReader.
	ReadOnly bool
	// Leases (PostgreSQL only) makes this process one of several writers sharing the chains
	// (lease.go): it writes only the chains it holds a lease on, and serves them all.
	Leases bool
	// Owner names this process in the lease table; default host name, pid and a random part.
	Owner string
	// Lease is how long a lease lasts unrenewed; default 15 s. A killed writer's chains
	// resume elsewhere within Lease + Lease/3 (plus a store open).
	Lease time.Duration
	// Hosts maps Host headers to chain ids, beside each chain's own "hosts" (a registry
	// directory has none).
	Hosts map[string]string
	// Registry receives the fleet's own metrics. The fleet's /metrics serves them and every
	// chain's, labelled chain_id (metrics.go); each chain's alone are at /{chain_id}/metrics.
	Registry *prometheus.Registry
	// Portfolio, when set, serves the portfolio across the chains (Minity's routes, under
	// /minity: internal/indexer/api minity.go).
	Portfolio *api.PortfolioConfig
}

// OutageBackoff is the largest pause between two attempts at a chain URL that has stopped
// answering: a dead node is asked about once a minute, not every few seconds.
const OutageBackoff = time.Minute

// Fleet is the running set of chains and the handler serving them.
type Fleet struct {
	cfg    Config
	log    *slog.Logger
	budget *httpx.Limiter
	own    http.Handler // the fleet's own routes (api.NewFleet)
	ctx    context.Context

	mu      sync.RWMutex
	chains  map[string]*chainRun
	hosts   map[string]*chainRun
	schemas map[string]string // PostgreSQL schema → chain id
	wg      sync.WaitGroup
	leases  *leaser         // nil without Config.Leases
	want    map[string]bool // the chains the last lease round gave this process
}

// New checks cfg and returns a fleet that Run starts.
func New(cfg Config) (*Fleet, error) {
	if cfg.Source == nil {
		if cfg.Chains == "" {
			return nil, errors.New("fleet: no chains (a registry directory or a JSON file)")
		}
		path := cfg.Chains
		cfg.Source = func() ([]Chain, error) { return Load(path) }
	}
	if !strings.HasPrefix(cfg.DB, "sqlite:") && !isPostgres(cfg.DB) {
		return nil, fmt.Errorf("fleet: store %q: want sqlite:<dir> or postgres://…", redactDSN(cfg.DB))
	}
	if cfg.Reload == 0 {
		cfg.Reload = 30 * time.Second
	}
	if cfg.PoolConns <= 0 {
		cfg.PoolConns = 4
	}
	if cfg.PruneEvery <= 0 {
		cfg.PruneEvery = 10 * time.Second
	}
	if cfg.RestartMin <= 0 {
		cfg.RestartMin = time.Second
	}
	if cfg.RestartMax <= 0 {
		cfg.RestartMax = time.Minute
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Leases && !isPostgres(cfg.DB) {
		return nil, errors.New("fleet: leases need a PostgreSQL store")
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 15 * time.Second
	}
	if cfg.Owner == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		cfg.Owner = fmt.Sprintf("%s-%d-%x", host, os.Getpid(), b)
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry() // /metrics gathers it beside the chains'
	}
	f := &Fleet{cfg: cfg, log: cfg.Log, budget: httpx.NewLimiter(cfg.Budget),
		chains: map[string]*chainRun{}, hosts: map[string]*chainRun{}, schemas: map[string]string{}}
	metrics := prometheus.Gatherers{cfg.Registry, prometheus.GathererFunc(f.gatherChains)}
	f.own = api.NewFleet(api.FleetConfig{CORS: cfg.API.CORS, Chains: f.list, Readiness: f.Readiness, Metrics: metrics, Portfolio: cfg.Portfolio,
		StreamPoll: cfg.API.StreamPoll, Streams: cfg.API.Streams}, cfg.Log, cfg.Registry)
	return f, nil
}

// Start reads the chain set and starts every chain under ctx (their stores open and their
// pipelines run in their own goroutines); Run then follows the set. A chain set that cannot
// be read is an error.
func (f *Fleet) Start(ctx context.Context) error {
	chains, err := f.cfg.Source()
	if err != nil {
		return err
	}
	f.mu.Lock()
	if f.ctx != nil {
		f.mu.Unlock()
		return errors.New("fleet: started twice")
	}
	f.ctx = ctx
	f.mu.Unlock()
	if f.cfg.Leases && !f.cfg.ReadOnly {
		if f.leases, err = newLeaser(ctx, f.cfg.DB, f.cfg.Owner, f.cfg.Lease); err != nil {
			return err
		}
		f.renew(ctx, chains)
	}
	f.apply(chains)
	return nil
}

// renew runs one lease round and tells each chain whether to write.
func (f *Fleet) renew(ctx context.Context, chains []Chain) {
	ids := make([]string, 0, len(chains))
	for _, c := range chains {
		ids = append(ids, c.ID)
	}
	keep, giveUp, err := f.leases.tick(ctx, ids)
	if err != nil {
		f.log.Warn("leases not renewed", "err", err)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.want = map[string]bool{}
	for _, id := range keep {
		f.want[id] = true
	}
	for _, r := range f.chains {
		r.setWant(f.want[r.spec.ID])
	}
	if len(giveUp) > 0 {
		f.log.Info("handing chains over to a fair share", "chains", giveUp)
	}
}

// leaseLoop renews the leases every Lease/3 until ctx ends.
func (f *Fleet) leaseLoop(ctx context.Context) {
	tick.Until(ctx, f.cfg.Lease/3, func(time.Time) bool {
		chains, err := f.cfg.Source()
		if err != nil {
			chains = nil
			f.mu.RLock()
			for _, r := range f.chains {
				chains = append(chains, r.spec)
			}
			f.mu.RUnlock()
		}
		f.renew(ctx, chains)
		return true
	})
}

// Run starts the fleet (unless Start did) and follows the chain set until ctx ends; then it
// stops every chain and returns once their pipelines have ended and their stores are closed.
// Once running, a chain set that cannot be read keeps the running set.
func (f *Fleet) Run(ctx context.Context) error {
	f.mu.RLock()
	started := f.ctx != nil
	f.mu.RUnlock()
	if !started {
		if err := f.Start(ctx); err != nil {
			return err
		}
	}
	if f.leases == nil {
		defer f.stopAll()
	} else {
		lctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); f.leaseLoop(lctx) }()
		defer func() {
			cancel()
			<-done
			f.stopAll()
			// Only now that no chain is being written are the leases handed back.
			f.leases.leave(context.WithoutCancel(ctx))
		}()
	}
	if f.cfg.Reload < 0 {
		<-ctx.Done()
		return nil
	}
	tick.Until(ctx, f.cfg.Reload, func(time.Time) bool {
		if err := f.Reload(); err != nil {
			f.log.Warn("chains not reloaded; keeping the running set", "from", f.cfg.Chains, "err", err)
		}
		return true
	})
	return nil
}

// Reload reads the chain set again and applies it: added chains start, removed ones stop,
// changed ones restart.
func (f *Fleet) Reload() error {
	chains, err := f.cfg.Source()
	if err != nil {
		return err
	}
	f.apply(chains)
	return nil
}

func (f *Fleet) apply(chains []Chain) {
	want := map[string]Chain{}
	for _, c := range chains {
		want[c.ID] = c
	}
	f.mu.Lock()
	var stop []*chainRun
	for id, r := range f.chains {
		if c, ok := want[id]; !ok || !c.equal(r.spec) {
			stop = append(stop, r)
			delete(f.chains, id)
			delete(f.schemas, r.schema)
		}
	}
	f.mu.Unlock()
	// A changed chain stops before it starts again: its store has one writer at a time.
	for _, r := range stop {
		f.log.Info("chain stopping", "chain_id", r.spec.ID)
		r.stop()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx.Err() != nil {
		return
	}
	for _, c := range chains {
		if _, ok := f.chains[c.ID]; ok {
			continue
		}
		r, err := f.newChain(c)
		if err != nil {
			f.log.Error("chain not started", "chain_id", c.ID, "err", err)
			continue
		}
		r.want.Store(f.leases == nil || f.want[c.ID])
		f.chains[c.ID] = r
		if r.schema != "" {
			f.schemas[r.schema] = c.ID
		}
		f.log.Info("chain starting", "chain_id", c.ID, "vm_type", c.VMType)
		f.wg.Add(1)
		go func() { defer f.wg.Done(); r.run() }()
	}
	f.hosts = map[string]*chainRun{}
	for h, id := range f.cfg.Hosts {
		if r, ok := f.chains[id]; ok {
			f.hosts[strings.ToLower(h)] = r
		}
	}
	for _, r := range f.chains {
		for _, h := range r.spec.Hosts {
			f.hosts[strings.ToLower(h)] = r
		}
	}
}

func (f *Fleet) stopAll() {
	f.mu.Lock()
	rs := make([]*chainRun, 0, len(f.chains))
	for _, r := range f.chains {
		rs = append(rs, r)
	}
	f.mu.Unlock()
	for _, r := range rs {
		r.cancel()
	}
	f.wg.Wait()
}

// list is the chain list of the fleet's own routes, without readiness (routing, the
// cross-rollup views): Reader is set once a chain's store is open.
func (f *Fleet) list() []api.FleetChain {
	f.mu.RLock()
	out := make([]api.FleetChain, 0, len(f.chains))
	for id, r := range f.chains {
		c := api.FleetChain{ID: id, VMType: r.spec.VMType, AccountPrefix: r.spec.AccountPrefix, Base: "/" + url.PathEscape(id)}
		if db := r.db.Load(); db != nil {
			c.Reader = db
			if f := r.feat.Load(); f != nil {
				c.Features = *f
			}
		}
		out = append(out, c)
	}
	f.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// readinessTimeout bounds one chain's store probe in Readiness: a store that hangs makes its
// chain STORE_UNAVAILABLE instead of holding /readyz.
const readinessTimeout = 2 * time.Second

// Readiness lists the chains with each one's readiness, read where the chain's own /readyz
// reads it (chainRun.readiness): /chains and the fleet's /readyz. The stores are probed a
// few at a time.
func (f *Fleet) Readiness(ctx context.Context) []api.FleetChain {
	out := f.list()
	f.mu.RLock()
	runs := make([]*chainRun, len(out))
	for i, c := range out {
		runs[i] = f.chains[c.ID]
	}
	f.mu.RUnlock()
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, r := range runs {
		if r == nil {
			out[i].State, out[i].Reason = api.ChainStarting, "CHAIN_STARTING"
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r.readiness(ctx, &out[i])
		}()
	}
	wg.Wait()
	return out
}

// ChainIDs lists the chains running now, sorted.
func (f *Fleet) ChainIDs() []string {
	var ids []string
	for _, c := range f.list() {
		ids = append(ids, c.ID)
	}
	return ids
}

// ServeHTTP routes a request to its chain's API: by Host header when the host is one a chain
// lists, else by the first path segment (removed, so the chain's API sees exactly the path a
// single-chain deployment would). Anything else goes to the fleet's own routes.
func (f *Fleet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c, prefix := f.route(r.Host, r.URL.Path); c != nil {
		if h := c.handler.Load(); h != nil {
			if prefix == "" {
				(*h).ServeHTTP(w, r)
				return
			}
			f.servePrefixed(w, r, prefix, *h)
			return
		}
	}
	f.own.ServeHTTP(w, r)
}

// route finds the chain a request is for: by its Host when hosts are configured, else by the
// path's first segment (then prefix is "/{chain_id}"); nil for the fleet's own paths.
func (f *Fleet) route(host, path string) (c *chainRun, prefix string) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if len(f.hosts) > 0 {
		host = strings.ToLower(host)
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if c = f.hosts[host]; c != nil {
			return c, ""
		}
	}
	seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if cr, ok := f.chains[seg]; ok {
		return cr, "/" + seg
	}
	return nil, ""
}

// Owns reports whether path is under a chain's prefix, /{chain_id}/…, of a chain the fleet
// runs (serving or still starting): a listener serving one chain at its root (`rollgate
// up`'s) hands such paths to the fleet, so every rollup is served under /{chain_id}/ there as
// /chains says.
func (f *Fleet) Owns(path string) bool {
	seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	f.mu.RLock()
	defer f.mu.RUnlock()
	_, ok := f.chains[seg]
	return ok
}

// Dispatch implements httpapi.Dispatcher: the chain API ServeHTTP hands a request to, and the
// request's path without the chain's prefix, so that the transport writes that chain's cached
// answers and streams itself.
func (f *Fleet) Dispatch(host, path string) (http.Handler, string, bool) {
	c, prefix := f.route(host, path)
	if c == nil {
		return nil, "", false
	}
	h := c.handler.Load()
	if h == nil {
		return nil, "", false
	}
	if prefix == "" {
		return *h, path, true
	}
	if path = strings.TrimPrefix(path, prefix); path == "" {
		path = "/"
	}
	return *h, path, true
}

// Chain returns a handler serving chain id's API at the root, as a single-chain deployment
// does (one listener per chain routing into the fleet: `rollgate up`'s URL table). The chain
// is looked up per request: while it starts, or after it is removed, the fleet's own JSON
// 503 or 404 answers.
func (f *Fleet) Chain(id string) http.Handler { return chainAPI{f: f, id: id} }

// chainAPI is what Chain returns; it is an httpapi.Dispatcher too.
type chainAPI struct {
	f  *Fleet
	id string
}

func (a chainAPI) handler() http.Handler {
	a.f.mu.RLock()
	c := a.f.chains[a.id]
	a.f.mu.RUnlock()
	if c != nil {
		if h := c.handler.Load(); h != nil {
			return *h
		}
	}
	return nil
}

func (a chainAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := a.handler(); h != nil {
		h.ServeHTTP(w, r)
		return
	}
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = "/"+a.id+r.URL.Path, ""
	r2.URL = &u
	a.f.own.ServeHTTP(w, r2)
}

// Rejected implements httpapi.Rejecter: the chain's listener counts in its API's metrics
// (the fleet's own while the chain is not serving).
func (a chainAPI) Rejected(status int) {
	if r, ok := a.handler().(httpapi.Rejecter); ok {
		r.Rejected(status)
		return
	}
	a.f.Rejected(status)
}

// Rejected implements httpapi.Rejecter: a request the transport refused names no chain, so
// it is counted in the fleet's own metrics.
func (f *Fleet) Rejected(status int) {
	if r, ok := f.own.(httpapi.Rejecter); ok {
		r.Rejected(status)
	}
}

// Dispatch implements httpapi.Dispatcher.
func (a chainAPI) Dispatch(_, path string) (http.Handler, string, bool) {
	h := a.handler()
	return h, path, h != nil
}

// servePrefixed serves r without its chain prefix. "/{chain_id}" alone is the chain's root.
func (f *Fleet) servePrefixed(w http.ResponseWriter, r *http.Request, prefix string, h http.Handler) {
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path = strings.TrimPrefix(r.URL.Path, prefix)
	if u.Path == "" {
		u.Path = "/"
	}
	if u.RawPath != "" {
		// The escaped form keeps the prefix escaped as the client sent it.
		esc := "/" + url.PathEscape(strings.TrimPrefix(prefix, "/"))
		u.RawPath = strings.TrimPrefix(u.RawPath, esc)
		if u.RawPath == "" {
			u.RawPath = "/"
		}
	}
	r2.URL = &u
	h.ServeHTTP(w, r2)
}

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// redactDSN keeps a password out of error messages.
func redactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		return u.Redacted()
	}
	return dsn
}

var notSchema = regexp.MustCompile(`[^a-z0-9_]+`)

// schemaOf is the PostgreSQL schema of a chain: "chain_" and the id lowercased with every
// run of other characters than [a-z0-9_] turned into "_" (minievm-1 → chain_minievm_1).
func schemaOf(id string) string {
	s := "chain_" + notSchema.ReplaceAllString(strings.ToLower(id), "_")
	if len(s) > 63 {
		s = s[:63]
	}
	return s
}
