package track

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/router/registry"
)

// errMissing is a batch's answer to a lookup it has not loaded yet.
var errMissing = errors.New("track: not loaded yet")

type findKey struct{ chainID, kind, key string }

type txKey struct{ chainID, hash string }

// msgGroup is one tx's messages of one event kind; msgKey one message of it.
type msgGroup struct {
	chainID string
	height  int64
	txIndex int
	kind    string
}

type msgKey struct {
	msgGroup
	msgIndex int
}

// batch is an eventSource for many evaluations at once. A transfer's walk (tx → its events →
// the packet's timeout, ack and receipt → what the receipt forwarded …) is a chain of lookups
// that each depend on the one before, so evaluating 2,000 transfers one by one was ~7 queries
// each, ~14,000 per block that moved them all. A batch instead runs every walk against what
// it holds, records what they lacked (errMissing), loads all of that with one query per
// (chain, kind) group, and runs the incomplete walks again: as many rounds of queries as the
// longest walk is deep (about five), whatever the number of transfers.
type batch struct {
	st *Store

	found map[findKey]*Event // nil: loaded, none stored
	txs   map[txKey][]Event
	msgs  map[msgKey][]Event
	times map[string]time.Time      // scan cursors' block times, loaded with the first load
	halts map[string]*ChainMismatch // halted chains (chaincheck.go), loaded with the times

	wantFind map[findKey]bool
	wantTx   map[txKey]bool
	wantMsg  map[msgKey]bool
	loaded   bool
}

func newBatch(st *Store) *batch {
	return &batch{st: st, found: map[findKey]*Event{}, txs: map[txKey][]Event{}, msgs: map[msgKey][]Event{},
		wantFind: map[findKey]bool{}, wantTx: map[txKey]bool{}, wantMsg: map[msgKey]bool{}}
}

// Find implements eventSource.
func (b *batch) Find(_ context.Context, chainID, kind, key string) (*Event, error) {
	k := findKey{chainID, kind, key}
	if ev, ok := b.found[k]; ok {
		return ev, nil
	}
	b.wantFind[k] = true
	return nil, errMissing
}

// TxEvents implements eventSource.
func (b *batch) TxEvents(_ context.Context, chainID, hash string) ([]Event, error) {
	k := txKey{chainID, hash}
	if evs, ok := b.txs[k]; ok {
		return evs, nil
	}
	b.wantTx[k] = true
	return nil, errMissing
}

// MsgEvents implements eventSource.
func (b *batch) MsgEvents(_ context.Context, chainID string, height int64, txIndex, msgIndex int, kind string) ([]Event, error) {
	k := msgKey{msgGroup{chainID, height, txIndex, kind}, msgIndex}
	if evs, ok := b.msgs[k]; ok {
		return evs, nil
	}
	b.wantMsg[k] = true
	return nil, errMissing
}

// ChainTime implements eventSource.
func (b *batch) ChainTime(_ context.Context, chainID string) (time.Time, error) {
	if !b.loaded {
		return time.Time{}, errMissing
	}
	return b.times[chainID], nil
}

// wants reports whether the last walks recorded anything to load.
func (b *batch) wants() bool {
	return len(b.wantFind) > 0 || len(b.wantTx) > 0 || len(b.wantMsg) > 0 || !b.loaded
}

// load reads everything the walks asked for: one query per (chain, kind), per chain for tx
// events, per (tx, kind) for message events (chunked under the databases' parameter limits).
func (b *batch) load(ctx context.Context) error {
	if !b.loaded {
		times, err := b.st.ChainTimes(ctx)
		if err != nil {
			return err
		}
		halts, err := b.st.HaltedChains(ctx)
		if err != nil {
			return err
		}
		b.times, b.halts, b.loaded = times, halts, true
	}
	finds := map[[2]string][]string{}
	for k := range b.wantFind {
		g := [2]string{k.chainID, k.kind}
		finds[g] = append(finds[g], k.key)
	}
	for g, keys := range finds {
		got, err := b.st.FindMany(ctx, g[0], g[1], keys)
		if err != nil {
			return err
		}
		for _, key := range keys {
			b.found[findKey{g[0], g[1], key}] = got[key] // nil when none
		}
	}
	txs := map[string][]string{}
	for k := range b.wantTx {
		txs[k.chainID] = append(txs[k.chainID], k.hash)
	}
	for chainID, hashes := range txs {
		got, err := b.st.TxEventsMany(ctx, chainID, hashes)
		if err != nil {
			return err
		}
		for _, h := range hashes {
			b.txs[txKey{chainID, h}] = got[h]
		}
	}
	msgs := map[msgGroup][]int{}
	for k := range b.wantMsg {
		msgs[k.msgGroup] = append(msgs[k.msgGroup], k.msgIndex)
	}
	for g, idx := range msgs {
		got, err := b.st.MsgEventsMany(ctx, g.chainID, g.height, g.txIndex, g.kind, idx)
		if err != nil {
			return err
		}
		for _, i := range idx {
			b.msgs[msgKey{g, i}] = got[i]
		}
	}
	clear(b.wantFind)
	clear(b.wantTx)
	clear(b.wantMsg)
	return nil
}

// maxPasses bounds the rounds of a batch: a walk deeper than this (a forward chain of more
// hops than any route has) is left incomplete and retried in the next round.
const maxPasses = 24

// batchResult is one transfer's evaluation in a batch: its status, or the error that left it
// incomplete.
type batchResult struct {
	k    tkey
	resp StatusResponse
	ev   *evaluation
	err  error
}

// evaluateBatch evaluates the transfers in keys against the store, loading what their walks
// need in bulk (see batch). created gives each transfer's registration time. The withdrawal
// probe is called once per withdrawal and batch, on a complete walk only.
func evaluateBatch(ctx context.Context, st *Store, reg *registry.Registry, probe WithdrawalProber, now time.Time,
	abandonAfter time.Duration, keys []tkey, created func(tkey) time.Time) (out []batchResult, passes int) {
	b := newBatch(st)
	if probe != nil {
		probe = &onceProber{inner: probe, seen: map[onceKey]onceAnswer{}}
	}
	todo := keys
	for ; len(todo) > 0; passes++ {
		if passes == maxPasses {
			for _, k := range todo {
				out = append(out, batchResult{k: k, err: fmt.Errorf("track: evaluation of %s on %s did not settle in %d passes", k.hash, k.chainID, maxPasses)})
			}
			break
		}
		var again []tkey
		for _, k := range todo {
			ev := &evaluation{ctx: ctx, st: b, reg: reg, probe: probe, now: now, halts: b.halts}
			resp := ev.evaluate(k.chainID, k.hash, created(k), abandonAfter)
			switch {
			case ev.err != nil:
				out = append(out, batchResult{k: k, err: ev.err})
			case ev.missing:
				again = append(again, k)
			default:
				noteHalts(&resp, ev.waits, b.halts)
				out = append(out, batchResult{k: k, resp: resp, ev: ev})
			}
		}
		if len(again) > 0 && b.wants() {
			if err := b.load(ctx); err != nil {
				for _, k := range again {
					out = append(out, batchResult{k: k, err: err})
				}
				break
			}
		}
		todo = again
	}
	return out, passes
}

type onceKey struct {
	l1, l2 string
	seq    uint64
}

type onceAnswer struct {
	p   WithdrawalProbe
	err error
}

// onceProber asks the inner prober once per withdrawal: a batch may walk a transfer again
// after the probe, and the probe is HTTP.
type onceProber struct {
	inner WithdrawalProber
	mu    sync.Mutex
	seen  map[onceKey]onceAnswer
}

func (o *onceProber) Probe(ctx context.Context, l1, l2 *registry.Chain, sequence uint64) (WithdrawalProbe, error) {
	k := onceKey{l1.ID, l2.ID, sequence}
	o.mu.Lock()
	a, ok := o.seen[k]
	o.mu.Unlock()
	if ok {
		return a.p, a.err
	}
	p, err := o.inner.Probe(ctx, l1, l2, sequence)
	o.mu.Lock()
	o.seen[k] = onceAnswer{p, err}
	o.mu.Unlock()
	return p, err
}
