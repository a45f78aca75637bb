package ingest

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Readiness reasons, machine-readable (NotReadyError.Reason).
const (
	NotReadyUpstream = "UPSTREAM_UNREACHABLE" // the chain cannot be read
	NotReadyLagging  = "LAGGING"              // too far behind the chain tip
	NotReadyStalled  = "STALLED"              // behind the tip and not advancing
	// NotReadyChainMismatch: the node serves another chain than the store holds (a reset
	// under the same chain id, a repointed node, a fork); nothing more is written.
	NotReadyChainMismatch = "CHAIN_MISMATCH"
	// NotReadyUpstreamBehind: the node's head is below the store's (a node restored from an
	// older snapshot); ingestion waits for it.
	NotReadyUpstreamBehind = "UPSTREAM_BEHIND"
	// NotReadyChainReset: the node serves another chain and OnChainMismatch is "reindex": the
	// store's data is being dropped to index the new chain from its first height.
	NotReadyChainReset = "CHAIN_RESET"
)

// NotReadyError says why the pipeline is not ready.
type NotReadyError struct {
	Reason  string // one of the NotReady* constants
	Message string // for a person: what is wrong, with the figures
}

func (e *NotReadyError) Error() string { return e.Message }

// ReadyReason is the machine reason, for APIs that report it.
func (e *NotReadyError) ReadyReason() string { return e.Reason }

// health is what readiness and the logs read, written by the dispatcher, the fetchers and
// the committer.
type health struct {
	headAt        atomicTime   // last successful read of the chain head
	advancedAt    atomicTime   // last write, or the start
	fetchFailures atomic.Int64 // failed attempts at a height (retry storms)
	warns         warnLimit    // rate limit of the fetch-side warnings
}

// Ready reports whether the indexer serves current data: nil when it does, a *NotReadyError
// otherwise. Ready means the chain answers (the head was read, or an upstream attempt
// succeeded, within Config.ReadyStaleAfter), the lag to the last known head is at most
// Config.ReadyMaxLag blocks, and a pipeline behind the head wrote a block within
// ReadyStaleAfter. A pipeline at the head of a quiet chain stays ready.
func (p *Pipeline) Ready() error {
	if err := p.ChainFault(); err != nil {
		return err
	}
	now := time.Now()
	stale := p.cfg.ReadyStaleAfter
	indexed, target := p.indexed.Load(), p.target.Load()
	headAt := p.health.headAt.Load()

	// The source's own record of attempts sees a failing upstream even while a call is stuck
	// in transport retries and the head read has not returned yet.
	var lastErr error
	reachable := !headAt.IsZero() && now.Sub(headAt) <= stale
	if u, ok := p.src.(interface {
		UpstreamState() (okAt, failAt time.Time, lastFail error)
	}); ok {
		okAt, failAt, fail := u.UpstreamState()
		if failAt.After(okAt) {
			lastErr = fail
		}
		if !okAt.IsZero() && now.Sub(okAt) <= stale && !headAt.IsZero() {
			reachable = true
		}
		if lastErr != nil && now.Sub(okAt) > stale {
			reachable = false
		}
	}
	switch {
	case !reachable:
		msg := "the chain head has not been read yet"
		if !headAt.IsZero() {
			msg = fmt.Sprintf("the chain has not answered for %s", now.Sub(headAt).Round(time.Second))
		}
		if lastErr != nil {
			msg += fmt.Sprintf(" (last error: %v)", lastErr)
		}
		return &NotReadyError{Reason: NotReadyUpstream, Message: msg}
	case target-indexed > p.cfg.ReadyMaxLag:
		return &NotReadyError{Reason: NotReadyLagging, Message: fmt.Sprintf(
			"%d blocks behind the chain tip (indexed %d, chain %d; ready within %d)", target-indexed, indexed, target, p.cfg.ReadyMaxLag)}
	case target > indexed && now.Sub(p.health.advancedAt.Load()) > stale:
		return &NotReadyError{Reason: NotReadyStalled, Message: fmt.Sprintf(
			"no block written for %s while %d behind the chain tip (indexed %d, chain %d)",
			now.Sub(p.health.advancedAt.Load()).Round(time.Second), target-indexed, indexed, target)}
	}
	for _, e := range p.exts {
		if err := e.ready(indexed); err != nil {
			return err
		}
	}
	return nil
}

// atomicTime is a time.Time readers may load while one goroutine stores it.
type atomicTime struct{ ns atomic.Int64 }

func (a *atomicTime) Store(t time.Time) { a.ns.Store(t.UnixNano()) }

// Load is the stored time, or the zero time when none was stored.
func (a *atomicTime) Load() time.Time {
	ns := a.ns.Load()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}
