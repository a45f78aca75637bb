package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/tick"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/reach"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/redact"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/store"
)

// chainRun is one running chain: its store, API and pipeline, under its own context.
type chainRun struct {
	f      *Fleet
	spec   Chain
	dsn    string
	schema string // PostgreSQL only
	log    *slog.Logger
	reg    *prometheus.Registry
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	// watch follows the chain's upstream URLs across pipeline restarts, so an outage is
	// logged once however often the pipeline starts again (package reach).
	watch   *reach.Watch
	handler atomic.Pointer[http.Handler] // nil until the store is open
	db      atomic.Pointer[store.DB]     // nil until the store is open
	feat    atomic.Pointer[api.Features] // the profile's API parts, set with db
	ready   atomic.Pointer[func() error] // the current pipeline's readiness
	pipe    chainView                    // the current pipeline, for the streams (api.Config.Chain)
	// check is the chain API's Config.Ready (set with db): the one readiness the chain's
	// /readyz, /chains and the fleet's /readyz all read.
	check   atomic.Pointer[func() error]
	openErr atomic.Pointer[string] // why the store did not open, while it does not
	want    atomic.Bool            // this process should write the chain (leases)
	// wmu makes "may write, so the pipeline starts" and "hand the lease back unless the
	// pipeline runs" exclusive: a lease is never released under a starting pipeline.
	wmu     sync.Mutex
	writing bool
}

func (f *Fleet) newChain(c Chain) (*chainRun, error) {
	r := &chainRun{f: f, spec: c, log: f.log.With("chain_id", c.ID), reg: prometheus.NewRegistry(), done: make(chan struct{})}
	r.watch = reach.New(r.log, f.cfg.Reach)
	if isPostgres(f.cfg.DB) {
		r.schema = schemaOf(c.ID)
		if o, ok := f.schemas[r.schema]; ok {
			return nil, fmt.Errorf("its schema %s is chain %s's", r.schema, o)
		}
		dsn, err := withParams(f.cfg.DB, map[string]string{"search_path": r.schema, "pool_max_conns": strconv.Itoa(f.cfg.PoolConns)})
		if err != nil {
			return nil, err
		}
		r.dsn = dsn
	} else {
		dir := strings.TrimPrefix(strings.TrimPrefix(f.cfg.DB, "sqlite:"), "//")
		r.dsn = "sqlite:" + filepath.Join(dir, c.ID+".db")
	}
	r.ctx, r.cancel = context.WithCancel(f.ctx)
	return r, nil
}

func (r *chainRun) stop() {
	r.cancel()
	<-r.done
}

// run opens the store (retried with backoff on any error: the others go on meanwhile),
// serves the API, then runs the pipeline, starting it afresh after a failure, until the
// chain is stopped.
func (r *chainRun) run() {
	defer close(r.done)
	var db *store.DB
	for wait := r.f.cfg.RestartMin; ; wait = min(2*wait, r.f.cfg.RestartMax) {
		var err error
		if db, err = r.open(); err == nil {
			break
		}
		if r.ctx.Err() != nil {
			return
		}
		msg := redact.Text(err.Error())
		r.openErr.Store(&msg)
		r.log.Error("chain store not opened; retrying", "err", err, "wait", wait)
		if !sleep(r.ctx, wait) {
			return
		}
	}
	defer db.Close()
	if keep := r.f.cfg.RetainHeights; keep > 0 {
		// Retention (store/prune.go): the writer prunes; every process answers pruned heights
		// alike. The pruner stops before the deferred Close above.
		db.SetRetention(keep)
		if !r.f.cfg.ReadOnly {
			pctx, stop := context.WithCancel(r.ctx)
			pruned := make(chan struct{})
			go func() {
				defer close(pruned)
				_ = ingest.RunPruner(pctx, db, keep, r.f.cfg.PruneEvery, r.log)
			}()
			defer func() { stop(); <-pruned }()
		}
	}
	prof, err := profile.Parse(r.spec.VMType)
	if err != nil {
		r.log.Error("chain not started", "err", err) // Validate refuses such a spec first
		return
	}
	cfg := r.f.cfg.API
	cfg.ChainID, cfg.AccountPrefix = r.spec.ID, r.spec.AccountPrefix
	cfg.Features = prof.API(db, r.apiOptions())
	cfg.RichList = r.richList()
	if pf := r.f.cfg.Portfolio; pf != nil && pf.Registry != nil {
		cfg.Decimals = registryDecimals(pf.Registry, r.spec.ID)
	}
	cfg.Ready = func() error {
		if f := r.ready.Load(); f != nil {
			return (*f)()
		}
		if r.f.cfg.ReadOnly || !r.mayWrite() {
			return nil // another process writes the chain: this one is ready once its store answers
		}
		return &ingest.NotReadyError{Reason: "INGESTION_STARTING", Message: "ingestion starting"}
	}
	cfg.Chain = &r.pipe
	h := api.NewServing(r.ctx, cfg, db, r.log, r.reg) // a lease-less chain reads the writer's chain state; a re-index drops the cache
	r.check.Store(&cfg.Ready)
	r.handler.Store(&h)
	r.feat.Store(&cfg.Features)
	r.db.Store(db)
	r.openErr.Store(nil)
	if r.f.cfg.ReadOnly {
		<-r.ctx.Done()
		return
	}
	for wait := r.f.cfg.RestartMin; ; wait = min(2*wait, r.f.cfg.RestartMax) {
		if !r.waitWriter() {
			return
		}
		start := time.Now()
		err := r.ingest(db)
		r.wmu.Lock()
		r.writing = false
		r.wmu.Unlock()
		if r.ctx.Err() != nil {
			return
		}
		if !r.mayWrite() {
			// The lease went (another process's share now, or not renewed in time): the
			// pipeline has stopped, so the lease can be handed back at once.
			r.log.Info("chain writer stopped: lease handed over")
			r.f.leases.release(r.ctx, r.spec.ID)
			wait = r.f.cfg.RestartMin / 2
			continue
		}
		if time.Since(start) > r.f.cfg.RestartMax {
			wait = r.f.cfg.RestartMin // it ran a good while: a new failure, not the same one
		}
		// Only this chain waits: the others' pipelines never see its failure.
		r.log.Error("chain ingestion failed; restarting it", "err", err, "wait", wait)
		if !sleep(r.ctx, wait) {
			return
		}
	}
}

// readiness fills c's readiness: starting while the store is not open, else what the
// chain's own /readyz answers (api.CheckReady over its store and its pipeline's Ready, so a
// reason the pipeline gives, such as UPSTREAM_UNREACHABLE, is the reason here).
func (r *chainRun) readiness(ctx context.Context, c *api.FleetChain) {
	db, check := r.db.Load(), r.check.Load()
	if db == nil || check == nil {
		c.State, c.Reason, c.Message = api.ChainStarting, "CHAIN_STARTING", "the chain's store is opening"
		if e := r.openErr.Load(); e != nil {
			c.Reason, c.Message = "STORE_UNAVAILABLE", "the chain's store does not open: "+*e
		}
		return
	}
	ctx, cancel := context.WithTimeout(ctx, readinessTimeout)
	defer cancel()
	h, err := api.CheckReady(ctx, db, r.f.cfg.API.MaxReplicaLag, *check)
	if err != nil {
		c.State = api.ChainNotReady
		c.Reason, c.Message = api.Reason(err)
		if h, herr := db.IndexedHeight(ctx); herr == nil {
			c.Height = h
		}
		return
	}
	c.Ready, c.State, c.Height = true, api.ChainReady, h
}

func (r *chainRun) richList() bool {
	if r.spec.RichList != nil {
		return *r.spec.RichList
	}
	return r.f.cfg.Ingest.RichList
}

func (r *chainRun) internalTx() bool {
	if r.spec.InternalTx != nil {
		return *r.spec.InternalTx
	}
	return vmkind.Kind(r.spec.VMType) == vmkind.EVM
}

// profileOptions are the chain's switches of its VM profile's extensions.
func (r *chainRun) profileOptions() profile.Options {
	return profile.Options{RichList: r.richList(), InternalTxs: r.internalTx(),
		Internal: ingest.InternalConfig{AccountPrefix: r.spec.AccountPrefix}}
}

func (r *chainRun) open() (*store.DB, error) {
	if r.f.cfg.ReadOnly {
		// An API process creates nothing: a writer (or `rollgate migrate`) made the store.
		return store.OpenReader(r.ctx, r.dsn, r.log)
	}
	if r.schema != "" {
		if err := createSchema(r.ctx, r.dsn, r.schema); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(filepath.Dir(strings.TrimPrefix(r.dsn, "sqlite:")), 0o755); err != nil {
		return nil, err
	}
	return store.Open(r.ctx, r.dsn, r.log)
}

// createSchema makes the chain's schema; its tables come from the store's migrations, run in
// it through the pool's search_path.
func createSchema(ctx context.Context, dsn, schema string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return err
	}
	delete(cfg.RuntimeParams, "pool_max_conns")
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize())
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return nil // another process created it at the same moment
	}
	return err
}

// mayWrite says whether this process writes the chain now: always without leases.
func (r *chainRun) mayWrite() bool {
	l := r.f.leases
	return l == nil || r.want.Load() && l.mayWrite(r.spec.ID)
}

// waitWriter waits until this process may write the chain; false when the chain stops.
func (r *chainRun) waitWriter() bool {
	for {
		r.wmu.Lock()
		ok := r.mayWrite()
		r.writing = ok
		r.wmu.Unlock()
		if ok {
			return true
		}
		r.ready.Store(nil)
		if !sleep(r.ctx, 50*time.Millisecond) {
			return false
		}
	}
}

// setWant records the last lease round's word on this chain; a lease to hand back is
// released at once when no pipeline runs (else by the run loop once it has stopped).
func (r *chainRun) setWant(want bool) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	r.want.Store(want)
	if !want && !r.writing && r.f.leases != nil && r.f.leases.holds(r.spec.ID) {
		r.f.leases.release(r.ctx, r.spec.ID)
	}
}

// ingest runs one attempt of the chain's pipeline (and, on EVM chains, its internal-tx
// follower) with fresh upstream clients, until one of them fails or the chain stops.
func (r *chainRun) ingest(db *store.DB) error {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	if r.f.leases != nil {
		// The writer stops as soon as the lease is not this process's any more.
		go tick.Until(ctx, 50*time.Millisecond, func(time.Time) bool {
			if !r.mayWrite() {
				cancel()
				return false
			}
			return true
		})
	}
	reg := &scopedRegisterer{Registerer: r.reg}
	defer reg.release()
	opts := append([]httpx.Option{httpx.WithLogger(r.log), httpx.WithLimiter(r.f.budget.Sub(r.f.cfg.MaxConns)), httpx.WithMaxAttempts(0),
		httpx.WithWatch(r.watch), httpx.WithOutageBackoff(OutageBackoff)}, r.f.cfg.HTTP...)
	src, err := ingest.DialSource(r.spec.RPC, r.spec.REST, reg, opts...)
	if err != nil {
		return err
	}
	icfg := r.f.cfg.Ingest
	icfg.ChainID, icfg.VMType, icfg.AccountPrefix = r.spec.ID, r.spec.VMType, r.spec.AccountPrefix
	icfg.StartHeight, icfg.RichList = r.spec.StartHeight, r.richList()
	prof, err := profile.Parse(r.spec.VMType)
	if err != nil {
		return err
	}
	if prof.JSONRPC() {
		rpc, err := evmrpc.New(r.spec.JSONRPC, opts...)
		if err != nil {
			return fmt.Errorf("json-rpc url: %w", err)
		}
		src.WithEVM(ingest.NewEVMSource(rpc))
	}
	icfg.Extensions = prof.Extensions(r.profileOptions())
	p, err := ingest.New(icfg, src, db, r.log, reg)
	if err != nil {
		return err
	}
	// Core readiness first, then the extensions' in the profile's order (p.Ready).
	ready := p.Ready
	r.ready.Store(&ready)
	r.pipe.p.Store(p)
	err = p.Run(ctx)
	if err == nil && r.ctx.Err() == nil {
		err = errors.New("ingestion ended")
	}
	return err
}

// scopedRegisterer remembers what a pipeline registered so a restarted pipeline can register
// the same metrics again on the chain's registry.
type scopedRegisterer struct {
	prometheus.Registerer
	mu sync.Mutex
	cs []prometheus.Collector
}

func (s *scopedRegisterer) Register(c prometheus.Collector) error {
	if err := s.Registerer.Register(c); err != nil {
		return err
	}
	s.mu.Lock()
	s.cs = append(s.cs, c)
	s.mu.Unlock()
	return nil
}

func (s *scopedRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := s.Register(c); err != nil {
			panic(err)
		}
	}
}

func (s *scopedRegisterer) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.cs {
		s.Registerer.Unregister(c)
	}
	s.cs = nil
}

// withParams sets query parameters of a URL-form DSN.
func withParams(dsn string, params map[string]string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("postgres DSN: %w", err)
	}
	q := u.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// chainView is api.ChainWatcher over a chain's current pipeline, which a restart or a moved
// lease replaces; before the first one there is nothing to watch.
type chainView struct {
	p atomic.Pointer[ingest.Pipeline]
}

func (v *chainView) ChainFault() error {
	if p := v.p.Load(); p != nil {
		return p.ChainFault()
	}
	return nil
}

func (v *chainView) ChainFaultChanged() <-chan struct{} {
	if p := v.p.Load(); p != nil {
		return p.ChainFaultChanged()
	}
	return nil // never closed: a stream opened before ingestion started is not interrupted
}

func (v *chainView) ChainResets() int64 {
	if p := v.p.Load(); p != nil {
		return p.ChainResets()
	}
	return 0
}

// registryDecimals reads a denom's decimals from the chain's assets in the registry as it is
// when asked (it reloads), for the CSV export's decimal amounts.
func registryDecimals(reg func() *registry.Registry, chainID string) func(string) (int, bool) {
	return func(denom string) (int, bool) {
		rg := reg()
		if rg == nil {
			return 0, false
		}
		c := rg.Chain(chainID)
		if c == nil {
			return 0, false
		}
		for _, a := range c.Assets {
			if a.Denom == denom {
				return a.Decimals, true
			}
		}
		return 0, false
	}
}
