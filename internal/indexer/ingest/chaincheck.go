package ingest

// Chain identity and continuity. The store refuses any block whose parent hash is not the
// stored hash below it (store.WriteBlocks, identity.go there); the pipeline checks, when it
// starts and whenever the node's head falls below the store's, that the node still serves the
// stored chain: its block at the stored top must hash as stored, and a node below the store
// must agree on the heights both hold. A node that serves another chain (a reset under the
// same chain id, an RPC URL repointed at another network, a fork after a rollback) halts
// ingestion, or, with Config.OnChainMismatch "reindex", drops the store's data and starts
// over on the new chain. A node merely behind (restored from an older snapshot) is waited for.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// chainStore is the part of the store the checks read; store.DB has it. A writer without it
// (test doubles) is trusted.
type chainStore interface {
	BlockHash(ctx context.Context, height int64) ([]byte, error)
	ChainIdentity(ctx context.Context) (store.ChainIdentity, bool, error)
}

// errBehind stops the core stages when the node's head falls below the indexed height, so
// that run checks the node again before anything more is fetched from it.
var errBehind = errors.New("the node is behind the store")

// chainFault is the pipeline's view of the chain it follows, for Ready, ChainFault and the
// streams: nil while the node serves the stored chain.
type chainFault struct {
	mu      sync.Mutex
	cur     *NotReadyError
	changed chan struct{} // closed, and replaced, at every change of cur
	logged  bool          // the mismatch was logged at ERROR: a halted pipeline says it once
	// recorded is the fault last written to the store (store.DB.SetChainFault), nil before
	// the first write of this process; only the goroutine running settle and reindex uses it.
	recorded *recordedFault
}

// recordedFault is a chain fault as written to the store, for API replicas to read.
type recordedFault struct{ reason, message string }

// faultRecorder is the store's SetChainFault (store.DB). A writer without it (test doubles)
// keeps the fault in-process only.
type faultRecorder interface {
	SetChainFault(ctx context.Context, fault, message string, mm *store.ChainMismatchError) error
}

// record writes the chain fault to the store, when it differs from the one last written, so
// that API replicas (which read the store only) report it and end their streams as this
// process's API does. A failed write is retried at the next call (the next recheck); readiness
// here does not wait for it.
func (p *Pipeline) record(ctx context.Context, reason, message string, mm *store.ChainMismatchError) {
	fr, ok := p.w.(faultRecorder)
	if !ok {
		return
	}
	want := recordedFault{reason: reason, message: message}
	if r := p.fault.recorded; r != nil && *r == want {
		return
	}
	if err := fr.SetChainFault(ctx, reason, message, mm); err != nil {
		if ctx.Err() == nil {
			p.log.Warn("recording the chain fault in the store failed; API replicas do not see it yet", "reason", reason, "err", err)
		}
		return
	}
	p.fault.recorded = &want
}

// ChainFault is nil while the node serves the chain the store holds, else a *NotReadyError
// whose Reason is NotReadyChainMismatch (nothing more is written) or NotReadyUpstreamBehind
// (the node is below the store; ingestion waits for it).
func (p *Pipeline) ChainFault() error {
	p.fault.mu.Lock()
	defer p.fault.mu.Unlock()
	if p.fault.cur == nil {
		return nil
	}
	return p.fault.cur
}

// ChainFaultChanged returns a channel closed at the next change of ChainFault (and at a
// re-index), so a stream can tell its client at once.
func (p *Pipeline) ChainFaultChanged() <-chan struct{} {
	p.fault.mu.Lock()
	defer p.fault.mu.Unlock()
	if p.fault.changed == nil {
		p.fault.changed = make(chan struct{})
	}
	return p.fault.changed
}

func (p *Pipeline) setFault(e *NotReadyError) {
	p.fault.mu.Lock()
	defer p.fault.mu.Unlock()
	same := (e == nil && p.fault.cur == nil) || (e != nil && p.fault.cur != nil && *e == *p.fault.cur)
	if same {
		return
	}
	p.fault.cur = e
	if p.fault.changed != nil {
		close(p.fault.changed)
		p.fault.changed = nil
	}
	mismatch, behind := 0.0, 0.0
	if e != nil && (e.Reason == NotReadyChainMismatch || e.Reason == NotReadyChainReset) {
		mismatch = 1
	}
	if e != nil && e.Reason == NotReadyUpstreamBehind {
		behind = 1
	}
	p.m.chainMismatch.Set(mismatch)
	p.m.chainBehind.Set(behind)
}

func (p *Pipeline) faultReason() string {
	p.fault.mu.Lock()
	defer p.fault.mu.Unlock()
	if p.fault.cur == nil {
		return ""
	}
	return p.fault.cur.Reason
}

// verify waits until the node's head reaches indexed and checks that its block there hashes
// as stored, returning that block's time (the next block's block_time needs it). A node below
// the store is reported UPSTREAM_BEHIND and asked again every PollInterval; one that serves
// another chain ends verify with a *store.ChainMismatchError. An empty store has nothing to
// check.
func (p *Pipeline) verify(ctx context.Context, indexed int64) (time.Time, error) {
	if indexed == 0 {
		return time.Time{}, nil
	}
	cs, _ := p.w.(chainStore)
	for attempt := 0; ; attempt++ {
		head, err := p.src.LatestHeight(ctx)
		if err == nil && head < indexed {
			if err := p.compareBelow(ctx, cs, head); err != nil {
				return time.Time{}, err
			}
			p.setTarget(head)
			if !p.behind.judge(head, indexed, time.Now(), p.cfg.BehindBlocks, p.cfg.BehindGrace) {
				// A few blocks below for a moment (a load-balanced RPC): waited for quietly.
				if !sleep(ctx, p.cfg.PollInterval) {
					return time.Time{}, ctx.Err()
				}
				attempt = -1
				continue
			}
			if p.faultReason() != NotReadyUpstreamBehind {
				p.log.Warn("the node is behind the store; waiting for it", "node_height", head, "indexed_height", indexed)
			}
			p.setFault(&NotReadyError{Reason: NotReadyUpstreamBehind, Message: fmt.Sprintf(
				"the node's head %d is below the store's indexed height %d (a node restored from an older snapshot?); waiting for it", head, indexed)})
			if !sleep(ctx, p.cfg.PollInterval) {
				return time.Time{}, ctx.Err()
			}
			attempt = -1
			continue
		}
		var b *RawBlock
		if err == nil {
			p.setTarget(head)
			b, err = p.src.Block(ctx, indexed)
		}
		var stored []byte
		if err == nil && cs != nil {
			if stored, err = cs.BlockHash(ctx, indexed); errors.Is(err, store.ErrNotFound) {
				stored, err = nil, nil // no row to compare with (never the case for the top): trust the writes' check
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return time.Time{}, ctx.Err()
			}
			p.health.warns.warn(p.log, "verify", "checking the node's block at the stored top failed; retrying", "height", indexed, "err", err, "attempt", attempt+1)
			if !sleep(ctx, p.backoff(attempt)) {
				return time.Time{}, ctx.Err()
			}
			continue
		}
		if stored != nil && !bytes.Equal(stored, b.Hash) {
			return time.Time{}, &store.ChainMismatchError{Height: indexed, Stored: stored, Got: b.Hash, NodeHeight: indexed}
		}
		if p.faultReason() == NotReadyUpstreamBehind {
			p.log.Info("the node has caught up with the store", "node_height", head, "indexed_height", indexed)
		}
		p.behind.clear()
		return b.Time, nil
	}
}

// behindWatch tells a node below the store (UPSTREAM_BEHIND) from a load-balanced RPC
// whose backends are a block or two apart: since is when the head was first seen below the
// store in the current stretch (zero: it is not). The stages that read the head use it one at
// a time (dispatch while the core runs, verify while it is stopped).
type behindWatch struct{ since time.Time }

// judge is whether a head below the store's indexed height, seen at now, is UPSTREAM_BEHIND:
// more than blocks below, or below for grace or longer.
func (b *behindWatch) judge(head, indexed int64, now time.Time, blocks int64, grace time.Duration) bool {
	if head >= indexed {
		b.since = time.Time{}
		return false
	}
	if b.since.IsZero() {
		b.since = now
	}
	return indexed-head > blocks || now.Sub(b.since) >= grace
}

// clear ends a stretch below the store: the head reached it.
func (b *behindWatch) clear() { b.since = time.Time{} }

// compareBelow checks a node whose head is below the store against a height both hold: the
// node's head itself, or, when the store no longer has it (pruned), the first block the
// store ever held or the chain's initial block. A failed read says nothing: the caller asks
// again on its next round.
func (p *Pipeline) compareBelow(ctx context.Context, cs chainStore, head int64) error {
	if cs == nil || head < 1 {
		return nil
	}
	at, stored := head, []byte(nil)
	h, err := cs.BlockHash(ctx, head)
	switch {
	case err == nil:
		stored = h
	case errors.Is(err, store.ErrNotFound):
		id, ok, err := cs.ChainIdentity(ctx)
		if err != nil || !ok {
			return nil
		}
		switch {
		case id.FirstHeight <= head:
			at, stored = id.FirstHeight, id.FirstHash
		case id.InitialHash != nil && id.InitialHeight <= head:
			at, stored = id.InitialHeight, id.InitialHash
		default:
			return nil
		}
	default:
		return nil
	}
	b, err := p.src.Block(ctx, at)
	if err != nil {
		return nil
	}
	if !bytes.Equal(b.Hash, stored) {
		return &store.ChainMismatchError{Height: at, Stored: stored, Got: b.Hash, NodeHeight: at}
	}
	return nil
}

// settle is run's answer to the core stopping on a mismatch or a node behind (cause): it
// verifies the node again and returns the time of the stored top block once the node serves
// the stored chain up to it. Halted on a mismatch, it asks again every ChainRecheck; with
// OnChainMismatch "reindex" it returns the mismatch for Run to start over.
func (p *Pipeline) settle(ctx context.Context, indexed int64, cause error) (time.Time, error) {
	for {
		prev, err := p.verify(ctx, indexed)
		if err == nil && errors.Is(cause, store.ErrChainMismatch) {
			// The node's block at the top hashes as stored, yet the store refused the next
			// one: trust the store, whose check sees every write.
			err = cause
		}
		cause = nil
		var mm *store.ChainMismatchError
		if !errors.As(err, &mm) {
			if err == nil {
				p.clearFault(ctx)
			}
			return prev, err
		}
		p.mismatched(ctx, mm)
		if p.cfg.OnChainMismatch == OnMismatchReindex {
			return time.Time{}, mm
		}
		if !sleep(ctx, p.cfg.ChainRecheck) {
			return time.Time{}, ctx.Err()
		}
	}
}

// mismatched reports a mismatch: readiness (kept current as the node moves on), the metric,
// and one ERROR line, however long the pipeline stays halted.
func (p *Pipeline) mismatched(ctx context.Context, mm *store.ChainMismatchError) {
	reason, action := NotReadyChainMismatch, "ingestion halted: nothing more is written until the node serves the stored chain again (--on-chain-mismatch halt)"
	if p.cfg.OnChainMismatch == OnMismatchReindex {
		reason, action = NotReadyChainReset, "dropping the stored data to index the new chain from its first height (--on-chain-mismatch reindex)"
	}
	msg := mm.Error() + "; " + action
	p.setFault(&NotReadyError{Reason: reason, Message: msg})
	p.record(ctx, reason, msg, mm)
	p.fault.mu.Lock()
	first := !p.fault.logged
	p.fault.logged = true
	p.fault.mu.Unlock()
	if first {
		p.log.Error("chain mismatch: the node serves another chain than the store holds; "+action,
			"stored_height", mm.Height, "stored_hash", store.HashHex(mm.Stored),
			"node_height", mm.NodeHeight, "node_hash", store.HashHex(mm.Got), "err", mm)
	}
}

func (p *Pipeline) clearFault(ctx context.Context) {
	if p.faultReason() == NotReadyChainMismatch && p.cfg.OnChainMismatch == OnMismatchHalt {
		p.log.Info("the node serves the stored chain again; ingestion resumes")
	}
	p.fault.mu.Lock()
	p.fault.logged = false
	p.fault.mu.Unlock()
	p.setFault(nil)
	// Also at start: a fault a previous run recorded is cleared once the node checks out.
	p.record(ctx, "", "", nil)
}

// resetter is the store's Reset (store.DB).
type resetter interface {
	Reset(ctx context.Context) error
}

// reindex drops the store's data after a mismatch (OnChainMismatch "reindex"), so that the
// next run indexes the node's chain from its first height, as a fresh run would. It runs
// with every stage stopped; the extensions forget what they learnt of the old chain.
func (p *Pipeline) reindex(ctx context.Context) error {
	r, ok := p.w.(resetter)
	if !ok {
		return errors.New("ingest: --on-chain-mismatch reindex needs a store that can be reset")
	}
	if err := p.retry(ctx, "drop the stored chain", func() error { return r.Reset(ctx) }); err != nil {
		return err
	}
	p.m.chainResets.Inc()
	p.m.indexedHeight.Set(0)
	p.indexed.Store(0)
	p.target.Store(0)
	p.size = writeSize{}
	p.behind = behindWatch{}
	p.proposers = newProposerResolver(p.src, p.log, p.cfg.ValidatorRefresh)
	for _, e := range p.exts {
		e.reset()
	}
	p.droppedMu.Lock()
	hooks := p.dropped
	p.droppedMu.Unlock()
	for _, f := range hooks {
		f()
	}
	p.resets.Add(1)
	p.log.Warn("stored chain dropped; indexing the node's chain from its first height", "resets", p.resets.Load())
	p.fault.recorded = &recordedFault{} // Reset cleared the stored fault
	p.clearFault(ctx)
	return nil
}

// OnReindex registers f, called each time the store has been dropped to index another chain,
// before ChainResets moves and before the fault that ended the streams clears: an API in this
// process drops its cached answers there, so no answer of the dropped chain is served once
// anyone can see the re-index.
func (p *Pipeline) OnReindex(f func()) {
	p.droppedMu.Lock()
	defer p.droppedMu.Unlock()
	p.dropped = append(p.dropped, f)
}

// ChainResets counts the re-indexes of this pipeline (OnChainMismatch "reindex"): a stream
// that started before the last one holds items of a chain the store no longer has.
func (p *Pipeline) ChainResets() int64 { return p.resets.Load() }

// initialHeight is the height CometBFT chains start at unless their genesis says otherwise.
const initialHeight = 1

// initialBlock is the chain's initial block when the node serves it (a pruned node does not):
// a store that starts above it (Config.StartHeight) records its hash beside the first block,
// so that a node below every stored block can still be told apart. One attempt: without it
// the store is checked from its first block on.
func (p *Pipeline) initialBlock(ctx context.Context) *RawBlock {
	if _, ok := p.w.(initialRecorder); !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, err := p.src.Block(ctx, initialHeight)
	if err != nil {
		p.log.Debug("the node does not serve the chain's initial block; the store is checked from its first block", "err", err)
		return nil
	}
	return b
}

// initialRecorder is the store's SetInitialBlock (store.DB).
type initialRecorder interface {
	SetInitialBlock(ctx context.Context, height int64, hash []byte) error
}

// recordInitial records the initial block once the first batch is stored (the identity row
// exists then), in the committer.
func (p *Pipeline) recordInitial(ctx context.Context) {
	b := p.initial
	p.initial = nil
	err := p.retry(ctx, "record the chain's initial block", func() error {
		return p.w.(initialRecorder).SetInitialBlock(ctx, b.Height, b.Hash)
	})
	if err != nil && ctx.Err() == nil {
		p.log.Warn("the chain's initial block is not recorded; the store is checked from its first block", "err", err)
	}
}
