// Package ingest is the indexer's ingestion pipeline: it fetches every height's CometBFT block,
// block results and REST tx JSON with bounded concurrency, builds the store's bundles (block
// row, the API's tx objects, message types, signer, accounts) and writes them strictly in
// height order, many blocks per transaction while catching up and block by block at the tip.
//
// Crash safety comes from the store: each WriteBlocks call stores its bundles and the indexed
// height in one transaction, and Run resumes at IndexedHeight()+1, so nothing is lost or
// written twice whatever the moment the process dies.
package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"

	"github.com/rollgate/rollgate/internal/store"
)

// Pipeline ingests a chain into a store. Create it with New and call Run once.
type Pipeline struct {
	cfg       Config
	src       Source
	w         store.Writer
	log       *slog.Logger
	m         *metrics
	builder   *Builder
	proposers *proposerResolver
	exts      []Extension // the VM profile's extensions (Config.Extensions), in its order

	target  atomic.Int64 // latest chain height seen
	indexed atomic.Int64 // last height written
	health  health
	fault   chainFault  // chaincheck.go
	behind  behindWatch // chaincheck.go: how long the node has been below the store
	size    writeSize   // the committer's: heights per WriteBlocks under repeated faults
	resets  atomic.Int64
	initial *RawBlock // the chain's initial block, until recorded beside a store started above it
	// dropped are called once the store was dropped to re-index, before ChainResets moves
	// (OnReindex).
	droppedMu sync.Mutex
	dropped   []func()
}

// New returns a pipeline. A nil logger discards logs; a nil registry skips metric registration.
func New(cfg Config, src Source, w store.Writer, logger *slog.Logger, reg prometheus.Registerer) (*Pipeline, error) {
	if src == nil || w == nil {
		return nil, errors.New("ingest: source and writer are required")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("ingest config: %w", err)
	}
	cfg = cfg.WithDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{
		cfg:       cfg,
		src:       src,
		w:         w,
		log:       logger,
		m:         m,
		builder:   NewBuilder(cfg.ChainID, cfg.AccountPrefix),
		proposers: newProposerResolver(src, logger, cfg.ValidatorRefresh),
		exts:      cfg.Extensions,
	}
	// A profile names an extension because its chain has the feature: a source or store
	// that cannot serve it is a configuration error, reported now rather than as a feature
	// silently off.
	var errs []error
	for _, e := range p.exts {
		if err := e.bind(p); err != nil {
			errs = append(errs, err)
		}
		if err := bindTables(p, e); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

// errStop ends Run cleanly once Config.StopAtHeight is written.
var errStop = errors.New("stop height reached")

type fetched struct {
	height int64
	bundle store.BlockBundle
}

// Run ingests until ctx is cancelled (then it returns nil, having either committed or abandoned
// the batch in flight, never part of it), until Config.StopAtHeight is written, or until an
// error it cannot retry past: undecodable chain data or a store that keeps failing.
func (p *Pipeline) Run(ctx context.Context) error {
	err := p.run(ctx)
	for errors.Is(err, store.ErrChainMismatch) && p.cfg.OnChainMismatch == OnMismatchReindex && ctx.Err() == nil {
		// settle returned the mismatch for a re-index: everything stopped, start over.
		if err = p.reindex(ctx); err == nil {
			err = p.run(ctx)
		}
	}
	if errors.Is(err, errStop) || (err != nil && ctx.Err() != nil) {
		err = nil
	}
	if err != nil {
		p.log.Error("ingestion failed", "err", err)
	} else {
		p.log.Info("ingestion stopped")
	}
	return err
}

func (p *Pipeline) run(ctx context.Context) error {
	var indexed int64
	if err := p.retry(ctx, "read indexed height", func() error {
		var err error
		indexed, err = p.w.IndexedHeight(ctx)
		return err
	}); err != nil {
		return err
	}
	next := indexed + 1
	if indexed == 0 && p.cfg.StartHeight > 1 {
		next = p.cfg.StartHeight
	}
	p.m.indexedHeight.Set(float64(indexed))
	p.indexed.Store(indexed)
	p.health.advancedAt.Store(time.Now())
	if p.cfg.StopAtHeight > 0 && next > p.cfg.StopAtHeight {
		return errStop
	}

	// block_time of the first block written needs the previous block's time. After a restart
	// that block is in the store but not in memory, so ask the chain, which verify does anyway:
	// the node's block at the stored top must hash as stored. A fresh start (height 1 or
	// START_HEIGHT) has no previous block and gets 0, as in rollytics.
	prev, err := p.settle(ctx, indexed, nil)
	if err != nil {
		return err
	}
	p.initial = nil
	if indexed == 0 && next > 1 {
		p.initial = p.initialBlock(ctx)
	}
	if err := p.ensureTables(ctx); err != nil {
		return err
	}
	for _, e := range p.exts {
		if err := e.start(ctx, indexed, next); err != nil {
			return err
		}
	}
	p.log.Info("ingestion starting", "from_height", next, "indexed_height", indexed, "extensions", p.extNames())

	// The extensions' followers run beside the core stages, not in their group: core
	// ingestion never waits for them. At StopAtHeight Run waits for those that stop there too
	// (the rich list); the others are stopped with the core. A follower that fails stops Run.
	coreCtx, failCore := context.WithCancelCause(ctx)
	defer failCore(nil)
	waitCtx, stopWaiting := context.WithCancel(coreCtx)
	defer stopWaiting()
	otherCtx, stopOthers := context.WithCancel(coreCtx)
	defer stopOthers()
	var followers sync.WaitGroup
	for _, e := range p.exts {
		run, waitAtStop := e.follow()
		if run == nil {
			continue
		}
		fctx := otherCtx
		if waitAtStop {
			fctx = waitCtx
		}
		followers.Go(func() {
			if err := run(fctx); err != nil && fctx.Err() == nil {
				failCore(fmt.Errorf("%s: %w", e.Name(), err))
			}
		})
	}
	err = p.runCore(coreCtx, next, prev)
	// A node that fell behind the store or served another chain stopped the core stages:
	// check it again, and go on from the store's height once it serves the stored chain.
	for coreCtx.Err() == nil && (errors.Is(err, errBehind) || errors.Is(err, store.ErrChainMismatch)) {
		indexed = p.indexed.Load()
		if prev, err = p.settle(coreCtx, indexed, err); err != nil {
			break // the context ended, or a mismatch to re-index from
		}
		err = p.runCore(coreCtx, indexed+1, prev)
	}
	stopOthers()
	if !errors.Is(err, errStop) {
		stopWaiting()
	}
	followers.Wait()
	if cause := context.Cause(coreCtx); cause != nil && ctx.Err() == nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return err
}

func (p *Pipeline) extNames() []string {
	names := make([]string, len(p.exts))
	for i, e := range p.exts {
		names[i] = e.Name()
	}
	return names
}

// runCore runs the core stages: dispatch, fetch, assemble, commit.
func (p *Pipeline) runCore(ctx context.Context, next int64, prev time.Time) error {
	g, gctx := errgroup.WithContext(ctx)
	heights := make(chan int64)
	results := make(chan fetched, p.cfg.Window)
	tokens := make(chan struct{}, p.cfg.Window)

	g.Go(func() error { return p.dispatch(gctx, next, heights, tokens) })
	for range p.cfg.Concurrency {
		g.Go(func() error {
			for h := range heights {
				b, err := p.fetchHeight(gctx, h)
				if err != nil {
					return err
				}
				select {
				case results <- fetched{height: h, bundle: b}:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
	}
	batches := make(chan batch) // unbuffered: a hand-over succeeds only when the committer is idle
	prog := newProgress(p, next-1)
	g.Go(func() error { return p.assemble(gctx, next, prev, results, tokens, batches, prog) })
	g.Go(func() error { return p.commit(gctx, batches, prog) })
	return g.Wait()
}

// headRefresh is how often the chain head is re-read while catching up.
const headRefresh = 5 * time.Second

// dispatch hands out heights in ascending order, never more than Window ahead of the writer
// (tokens), and never above the chain head: at the tip it polls /status.
func (p *Pipeline) dispatch(ctx context.Context, next int64, heights chan<- int64, tokens chan<- struct{}) error {
	defer close(heights)
	var lastHead time.Time
	for h := next; p.cfg.StopAtHeight <= 0 || h <= p.cfg.StopAtHeight; h++ {
		// While catching up the head is re-read now and then, only so that progress and the
		// chain-height metric stay current; a failure there is not worth a retry.
		if h <= p.target.Load() && time.Since(lastHead) > headRefresh {
			lastHead = time.Now()
			if head, err := p.src.LatestHeight(ctx); err == nil {
				p.setTarget(head)
			}
		}
		for attempt := 0; h > p.target.Load(); {
			lastHead = time.Now()
			head, err := p.src.LatestHeight(ctx)
			if ctx.Err() != nil {
				return nil
			}
			switch {
			case err != nil:
				p.m.fetchErrors.WithLabelValues("status").Inc()
				p.health.warns.warn(p.log, "head", "reading the chain head failed", "err", err, "attempt", attempt+1)
				if !sleep(ctx, p.backoff(attempt)) {
					return nil
				}
				attempt++
			case head < p.indexed.Load() && p.behind.judge(head, p.indexed.Load(), time.Now(), p.cfg.BehindBlocks, p.cfg.BehindGrace):
				return errBehind // the node went back below the store: run checks it again
			case head < h:
				if head >= p.indexed.Load() {
					p.behind.clear()
				}
				p.setTarget(head)
				if !sleep(ctx, p.cfg.PollInterval) {
					return nil
				}
			default:
				p.behind.clear()
				p.setTarget(head)
			}
		}
		select {
		case tokens <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		select {
		case heights <- h:
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}

// setTarget records a successful read of the chain head.
func (p *Pipeline) setTarget(h int64) {
	p.health.headAt.Store(time.Now())
	if h > p.target.Load() {
		p.target.Store(h)
		p.m.chainHeight.Set(float64(h))
	}
}

// fetchHeight returns the bundle of one height, retrying with backoff: without limit on
// transport errors, MaxInvalidAttempts times on undecodable data. A height not produced yet
// (a node behind the one that answered /status) is waited for, not counted as an error.
//
// A retry keeps the parts an earlier attempt got, and between two attempts the node may have
// been replaced by another chain under the same URL (a reset, a repointed load balancer): the
// block from the old node, its results or receipts from the new one would make one height of
// two chains, and its parent hash would still link it to the store. So a bundle assembled
// after any failure is only returned once the node, asked again after every part was read,
// still serves the kept block (sameBlock).
func (p *Pipeline) fetchHeight(ctx context.Context, h int64) (store.BlockBundle, error) {
	invalid := 0
	var got rawHeight
	failed := false
	for attempt := 0; ; attempt++ {
		b, err := p.fetchOnce(ctx, h, &got)
		if err == nil && failed {
			err = p.sameBlock(ctx, h, &got)
		}
		if err == nil {
			return b, nil
		}
		if ctx.Err() != nil {
			return store.BlockBundle{}, ctx.Err()
		}
		wait := p.backoff(attempt)
		if attempt == 0 {
			// Only the failed part is asked again (fetchRaw), so the first retry is cheap
			// and comes at once; a height that keeps failing backs off as before.
			wait /= 10
		}
		switch {
		case errors.Is(err, ErrFutureHeight):
			attempt = -1 // the next failure starts the backoff afresh
			wait = p.cfg.PollInterval
		case errors.Is(err, ErrInvalidData):
			got = rawHeight{} // which part is wrong is unknown: ask for all of it again
			p.m.fetchErrors.WithLabelValues("invalid").Inc()
			p.health.fetchFailures.Add(1)
			invalid++
			if invalid >= p.cfg.MaxInvalidAttempts {
				return store.BlockBundle{}, fmt.Errorf("height %d: giving up after %d attempts: %w", h, invalid, err)
			}
			p.health.warns.warn(p.log, "invalid", "height data invalid; retrying", "height", h, "err", err, "attempt", invalid)
		default:
			p.m.fetchErrors.WithLabelValues("transport").Inc()
			p.health.fetchFailures.Add(1)
			p.health.warns.warn(p.log, "fetch", "fetching height failed; retrying", "height", h, "err", err, "attempt", attempt+1, "wait", wait)
		}
		// Only parts kept across a failure can come from another block than the parts read
		// after it; a wait at the tip keeps nothing, so it costs no hash check.
		failed = got.kept()
		p.m.fetchRetries.Inc()
		if !sleep(ctx, wait) {
			return store.BlockBundle{}, ctx.Err()
		}
	}
}

// errNodeChanged: the node's block at a height no longer hashes as the one fetched before a
// failed attempt; everything kept of that height is dropped and asked for again.
var errNodeChanged = errors.New("the node now serves another block at this height")

// sameBlock asks the node for block h again and compares it with the kept one. On a
// difference the kept parts are dropped, so the next attempt reads the height whole from the
// node as it is now; the store then refuses that block if it does not continue the stored
// chain, and the chain checks report the mismatch.
func (p *Pipeline) sameBlock(ctx context.Context, h int64, got *rawHeight) error {
	var now []byte
	if bh, ok := p.src.(blockHasher); ok {
		hash, err := bh.BlockHash(ctx, h)
		if err != nil {
			return err
		}
		now = hash
	} else {
		b, err := p.src.Block(ctx, h)
		if err != nil {
			return err
		}
		now = b.Hash
	}
	if !bytes.Equal(now, got.blk.Hash) {
		was := got.blk.Hash
		*got = rawHeight{}
		return fmt.Errorf("height %d: %w (%s, was %s)", h, errNodeChanged, store.HashHex(now), store.HashHex(was))
	}
	return nil
}

// blockHasher is a Source that can give a block's hash without its txs (ClientSource);
// sameBlock asks for the whole block of one that cannot.
type blockHasher interface {
	BlockHash(ctx context.Context, height int64) ([]byte, error)
}

func (p *Pipeline) fetchOnce(ctx context.Context, h int64, got *rawHeight) (store.BlockBundle, error) {
	if err := p.fetchRaw(ctx, h, got); err != nil {
		return store.BlockBundle{}, err
	}
	blk, results, rest := got.blk, got.results, got.rest
	proposer, err := p.proposers.Resolve(ctx, blk.ProposerAddress)
	if err != nil {
		return store.BlockBundle{}, fmt.Errorf("height %d: %w", h, err)
	}
	b, err := p.builder.Build(blk, results, rest, proposer)
	if err != nil {
		return store.BlockBundle{}, err
	}
	for _, e := range p.exts {
		if err := e.extract(ctx, blk, results, &b); err != nil {
			return store.BlockBundle{}, err
		}
	}
	return b, nil
}

// batch is a run of consecutive bundles written in one WriteBlocks call.
type batch struct {
	bundles []store.BlockBundle
	txs     int
}

// assemble takes bundles in height order, gives each its block_time, and hands batches to
// the committer. A batch is handed over as soon as the committer is idle, so at the tip every
// block goes out on its own; while the committer is busy the next batch keeps growing, so
// catching up writes large transactions while fetching goes on. Only a full batch makes it
// wait (and, through the window, the fetchers).
func (p *Pipeline) assemble(ctx context.Context, next int64, prev time.Time, results <-chan fetched, tokens <-chan struct{}, batches chan<- batch, prog *progress) error {
	defer close(batches)
	pending := map[int64]store.BlockBundle{}
	expected := next
	var cur batch
	ticker := time.NewTicker(p.cfg.ProgressInterval)
	defer ticker.Stop()

	// take moves the ready bundles, in order, into the current batch until it is full.
	take := func() {
		for len(cur.bundles) < p.cfg.MaxBatchBlocks && cur.txs < p.cfg.MaxBatchTxs {
			b, ok := pending[expected]
			if !ok || (p.cfg.StopAtHeight > 0 && expected > p.cfg.StopAtHeight) {
				return
			}
			delete(pending, expected)
			<-tokens
			if !prev.IsZero() {
				b.Block.BlockTimeMs = blockTimeMs(b.Block.Time, prev)
			}
			prev = b.Block.Time
			cur.bundles = append(cur.bundles, b)
			cur.txs += len(b.Txs)
			expected++
		}
	}

	for {
		stopReached := p.cfg.StopAtHeight > 0 && expected > p.cfg.StopAtHeight
		full := len(cur.bundles) >= p.cfg.MaxBatchBlocks || cur.txs >= p.cfg.MaxBatchTxs || stopReached
		var out chan<- batch
		if len(cur.bundles) > 0 {
			out = batches
		}
		in := results
		if full {
			in = nil // hand the batch over before taking more
		}
		if stopReached && len(cur.bundles) == 0 {
			return nil // everything up to the stop height is with the committer
		}
		select {
		case out <- cur:
			cur = batch{}
			take() // bundles that arrived while the batch was full
		case f := <-in:
			pending[f.height] = f.bundle
			take()
		case <-ticker.C:
			prog.log()
		case <-ctx.Done():
			// The batch not yet handed over is abandoned whole; the store has every earlier one.
			return ctx.Err()
		}
	}
}

// blockTimeMs is rollytics' block_time: it subtracts the times as PostgreSQL stores them,
// truncated to microseconds, so a nanosecond-exact difference can be 1 ms off its answer
// (busy capture, height 228: 10.049999907 s exact, 10.050000 s truncated).
func blockTimeMs(cur, prev time.Time) int64 {
	return cur.Truncate(time.Microsecond).Sub(prev.Truncate(time.Microsecond)).Milliseconds()
}

// commit is the only goroutine touching the store: it writes batches in the order received.
func (p *Pipeline) commit(ctx context.Context, batches <-chan batch, prog *progress) error {
	for b := range batches {
		for _, e := range p.exts {
			e.beforeWrite(ctx, b.bundles)
		}
		if err := p.writeBatch(ctx, b.bundles); err != nil {
			return err
		}
		if p.initial != nil {
			p.recordInitial(ctx)
		}
		last := b.bundles[len(b.bundles)-1].Block.Height
		prog.written(last, len(b.bundles), b.txs)
		if p.cfg.StopAtHeight > 0 && last >= p.cfg.StopAtHeight {
			return errStop
		}
	}
	return ctx.Err()
}

// writeBatch writes a batch, in one transaction while nothing fails; under repeated transient
// faults in smaller runs of heights (writeSize), so that some commit between two faults.
func (p *Pipeline) writeBatch(ctx context.Context, batch []store.BlockBundle) error {
	attempt := 0
	for len(batch) > 0 {
		n := p.size.Take(len(batch))
		if err := p.writeRun(ctx, batch[:n], &attempt); err != nil {
			if errors.Is(err, errSplit) {
				continue
			}
			return err
		}
		batch = batch[n:]
	}
	return nil
}

// errSplit: writeRun halved the write size after a transient failure; try again at once.
var errSplit = errors.New("write split")

// writeRun writes consecutive bundles in one WriteBlocks call, retrying: a transient error on
// more than one height splits the run (errSplit); on one height, it is retried with backoff
// without limit (the batch is atomic, and the API keeps serving meanwhile); any other error
// stops ingestion after MaxWriteAttempts. attempt counts the failures since the last commit.
func (p *Pipeline) writeRun(ctx context.Context, run []store.BlockBundle, attempt *int) error {
	for ; ; *attempt++ {
		start := time.Now()
		err := p.w.WriteBlocks(ctx, run)
		if err == nil {
			p.size.Done(len(run), p.cfg.MaxBatchBlocks, nil)
			*attempt = 0
			txs := 0
			for _, b := range run {
				txs += len(b.Txs)
			}
			last := run[len(run)-1].Block.Height
			p.m.writeSeconds.Observe(time.Since(start).Seconds())
			p.m.batchBlocks.Observe(float64(len(run)))
			p.m.batchTxs.Observe(float64(txs))
			p.m.blocksWritten.Add(float64(len(run)))
			p.m.txsWritten.Add(float64(txs))
			p.m.indexedHeight.Set(float64(last))
			// A batch written in runs advances with each: readiness sees progress, not a stall.
			p.indexed.Store(last)
			p.health.advancedAt.Store(time.Now())
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, store.ErrChainMismatch) {
			return err // the batch is of another chain: run decides (chaincheck.go)
		}
		if p.repair(ctx, run, err) {
			*attempt--
			continue
		}
		transient := store.IsTransient(err)
		p.m.writeRetries.Inc()
		if p.size.Done(len(run), p.cfg.MaxBatchBlocks, err) {
			p.log.Warn("writing blocks failed; retrying in smaller runs", "from", run[0].Block.Height, "to", run[len(run)-1].Block.Height,
				"err", err, "next_run", p.size.Take(len(run)), "attempt", *attempt+1)
			return errSplit
		}
		if !transient && *attempt+1 >= p.cfg.MaxWriteAttempts {
			return fmt.Errorf("write heights %d..%d: %w", run[0].Block.Height, run[len(run)-1].Block.Height, err)
		}
		p.log.Warn("writing blocks failed; retrying", "from", run[0].Block.Height, "to", run[len(run)-1].Block.Height,
			"err", err, "transient", transient, "attempt", *attempt+1)
		if !sleep(ctx, p.backoff(*attempt)) {
			return ctx.Err()
		}
	}
}

// repair asks the extensions to answer a refused write; true when one changed the batch so
// that it may be written again at once.
func (p *Pipeline) repair(ctx context.Context, batch []store.BlockBundle, err error) bool {
	for _, e := range p.exts {
		if e.repair(ctx, batch, err) {
			return true
		}
	}
	return false
}

// retry runs f until it succeeds, with backoff, MaxWriteAttempts times (start-up reads);
// without limit while the error is transient.
func (p *Pipeline) retry(ctx context.Context, what string, f func() error) error {
	for attempt := 0; ; attempt++ {
		err := f()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if attempt+1 >= p.cfg.MaxWriteAttempts && !errors.Is(err, ErrFutureHeight) && !store.IsTransient(err) {
			return fmt.Errorf("%s: %w", what, err)
		}
		p.log.Warn(what+" failed; retrying", "err", err)
		if !sleep(ctx, p.backoff(attempt)) {
			return ctx.Err()
		}
	}
}

// backoff is exponential from RetryMin to RetryMax with ±10 % jitter.
func (p *Pipeline) backoff(attempt int) time.Duration {
	d := p.cfg.RetryMin
	for i := 0; i < attempt && d < p.cfg.RetryMax; i++ {
		d *= 2
	}
	d = min(d, p.cfg.RetryMax)
	jitter := time.Duration(float64(d) * 0.1 * (2*rand.Float64() - 1))
	return d + jitter
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
