package track

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/reach"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/sqldb"
)

// Domain errors; the API layer turns them into HTTP answers.
var (
	// ErrUnknownChain: the chain id is not in the registry (or has no RPC to follow it on).
	ErrUnknownChain = errors.New("chain ID not supported")
	// ErrInvalidHash: the tx hash is not 32 bytes of hex.
	ErrInvalidHash = errors.New("tx hash must be 64 hex characters")
	// ErrInvalidTx: /submit got bytes that are not base64.
	ErrInvalidTx = errors.New("tx must be base64 encoded")
)

// RejectedError is a tx the chain refused at broadcast (CheckTx code ≠ 0).
type RejectedError struct {
	Code      uint32
	Codespace string
	Log       string
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("tx is invalid on chain: code %d (%s): %s", e.Code, e.Codespace, e.Log)
}

// Config configures a Tracker; zero values take the defaults in brackets.
type Config struct {
	// Owner names this replica in leases (random).
	Owner string
	// Poll is how often a caught-up chain is asked for its tip and the evaluator wakes (200 ms).
	Poll time.Duration
	// Batch is the number of heights fetched in one JSON-RPC batch (20).
	Batch int
	// Lease is how long a replica's claim on a transfer or a chain scan lasts without renewal (15 s).
	Lease time.Duration
	// ClaimBatch bounds the transfers a replica takes over in one round, so replicas starting
	// together share the work (256).
	ClaimBatch int
	// Backfill is how many blocks below the tip a chain's first scan starts (1000).
	Backfill int64
	// AbandonAfter: a tx not seen on chain this long after registration is STATE_ABANDONED (30 min).
	AbandonAfter time.Duration
	// Sweep: every transfer held is evaluated again at least this often (10 s), beside the
	// event-driven evaluations.
	Sweep time.Duration
	// Probe follows withdrawals between L2 and the L1 claim (a RESTProber).
	Probe WithdrawalProber
	// RPCOptions configure the chain clients.
	RPCOptions []httpx.Option
	// Observe, when set, is told of every status this replica wrote (tests use it to show each
	// transfer is processed by one replica).
	Observe func(chainID, hash, state string)
	// Now is the clock (time.Now).
	Now func() time.Time
	// Log (discard).
	Log *slog.Logger
}

type tkey struct{ chainID, hash string }

type held struct {
	created time.Time
	waits   []EventKey
	recheck time.Time
	doc     []byte
}

// Tracker registers txs, scans the watched chains' blocks and keeps every registered
// transfer's status up to date in the Store until it is terminal.
type Tracker struct {
	cfg  Config
	st   *Store
	live *registry.Live
	log  *slog.Logger

	rpcMu       sync.Mutex
	rpc         map[string]*comet.Client
	watches     map[string]*reach.Watch   // by chain: its RPC's reachability (client)
	evm         evmClients                // EVM chains' JSON-RPC (evmscan.go)
	scans       map[string]*chainScan     // by chain: its scan's state here (chaincheck.go)
	storedHalts map[string]*ChainMismatch // halted chains as the store last said (refreshHalted)
	mismatch    *prometheus.GaugeVec      // 1 for a chain whose scan is halted on a chain mismatch

	mu        sync.Mutex
	held      map[tkey]*held
	waitIdx   map[EventKey]map[tkey]bool
	dirty     map[tkey]bool
	lastEvent int64
	lastSweep time.Time
	lastClaim time.Time

	applySize, claimSize         sqldb.WriteSize // statuses per Apply, fresh transfers per Claim under repeated faults (the round's goroutine)
	wake                         chan struct{}
	newWork                      atomic.Bool // the last claim took a full batch: more may be free
	calls, blocks, evals, writes atomic.Int64
}

// New returns a tracker over the store and the live registry.
func New(st *Store, live *registry.Live, cfg Config) *Tracker {
	if cfg.Owner == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		cfg.Owner = hex.EncodeToString(b[:])
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 200 * time.Millisecond
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 20
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 15 * time.Second
	}
	if cfg.ClaimBatch <= 0 {
		cfg.ClaimBatch = 256
	}
	if cfg.Backfill <= 0 {
		cfg.Backfill = 1000
	}
	if cfg.AbandonAfter == 0 {
		cfg.AbandonAfter = 30 * time.Minute
	}
	if cfg.Sweep <= 0 {
		cfg.Sweep = 10 * time.Second
	}
	if cfg.Probe == nil {
		cfg.Probe = &RESTProber{Options: cfg.RPCOptions}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Tracker{cfg: cfg, st: st, live: live, log: cfg.Log, rpc: map[string]*comet.Client{}, watches: map[string]*reach.Watch{},
		scans: map[string]*chainScan{}, mismatch: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rollgate_track_chain_mismatch",
			Help: "1 while a chain's scan is halted because its node serves another chain than the one scanned (CHAIN_MISMATCH)."}, []string{"chain_id"}),
		held: map[tkey]*held{}, waitIdx: map[EventKey]map[tkey]bool{}, dirty: map[tkey]bool{}, wake: make(chan struct{}, 1)}
}

// Owner is this replica's lease name.
func (t *Tracker) Owner() string { return t.cfg.Owner }

// Register exposes the tracker's counters on reg: upstream calls of the scanners, blocks
// scanned, evaluations, status writes, and the transfers this replica holds.
func (t *Tracker) Register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "rollgate_track_upstream_calls_total",
			Help: "Chain RPC calls made by the tracker's block scanners (tip polls and block batches)."}, func() float64 { return float64(t.calls.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "rollgate_track_blocks_scanned_total",
			Help: "Blocks whose events the tracker's scanners stored."}, func() float64 { return float64(t.blocks.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "rollgate_track_evaluations_total",
			Help: "Transfer status evaluations."}, func() float64 { return float64(t.evals.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "rollgate_track_status_writes_total",
			Help: "Changed statuses written to the store."}, func() float64 { return float64(t.writes.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rollgate_track_transfers_held",
			Help: "Transfers in flight held (leased) by this replica."}, func() float64 {
			t.mu.Lock()
			defer t.mu.Unlock()
			return float64(len(t.held))
		}),
		t.mismatch,
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Stats are the tracker's counters: upstream RPC calls made by the scanners, blocks scanned,
// transfer evaluations.
type Stats struct{ Calls, Blocks, Evaluations int64 }

// Stats returns the counters.
func (t *Tracker) Stats() Stats {
	return Stats{Calls: t.calls.Load(), Blocks: t.blocks.Load(), Evaluations: t.evals.Load()}
}

func (t *Tracker) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *Tracker) client(chainID string) (*comet.Client, error) {
	c := t.live.Current().Chain(chainID)
	if c == nil || c.Type != registry.ChainTypeCosmos || len(c.RPC) == 0 {
		return nil, ErrUnknownChain
	}
	t.rpcMu.Lock()
	defer t.rpcMu.Unlock()
	if cl, ok := t.rpc[chainID]; ok {
		return cl, nil
	}
	// One watch per chain over its RPC URLs: the scanner's and the probes' attempts alike, so
	// an outage is logged once, naming the chain, and /readyz can say which chains answer.
	w := t.watches[chainID]
	if w == nil {
		w = reach.New(t.log.With("chain_id", chainID), reach.Options{Now: t.cfg.Now})
		t.watches[chainID] = w
	}
	opts := append([]httpx.Option{httpx.WithWatch(w)}, t.cfg.RPCOptions...)
	cl, err := comet.New(strings.Join(c.RPC, ","), opts...)
	if err != nil {
		return nil, err
	}
	t.rpc[chainID] = cl
	return cl, nil
}

// NormalizeHash checks a tx hash and returns it in CometBFT's upper-case form.
func NormalizeHash(h string) (string, error) {
	h = strings.TrimPrefix(strings.TrimPrefix(h, "0x"), "0X")
	if b, err := hex.DecodeString(h); err != nil || len(b) != 32 {
		return "", ErrInvalidHash
	}
	return strings.ToUpper(h), nil
}

// Track registers (chainID, hash). It is idempotent and answers at once: a hash the chain has
// not included yet is kept in STATE_SUBMITTED and picked up by the chain's scanner.
func (t *Tracker) Track(ctx context.Context, chainID, hash string) (TrackResponse, error) {
	return t.register(ctx, chainID, hash, t.st.Register)
}

// Retry is /v2/tx/retry_track: Skip's explorer sends it for a transfer whose tracking was
// abandoned ("Reindex abandoned transactions", skip-mev/skip-go@fa6095e:apps/explorer/src/app/page.tsx,
// onReindex). Here a transfer is abandoned when its tx was not seen on chain within
// AbandonAfter; retrying registers it afresh (STATE_SUBMITTED, a new AbandonAfter window) and
// looks the tx up by hash at once, since the scanners stop watching for an abandoned hash and
// may have passed its block. Any other registered transfer is left as it is (its status is
// already current; a terminal one would evaluate to the same answer): Retry answers as Track
// does. An unregistered one is ErrNotFound: there is nothing to retry.
func (t *Tracker) Retry(ctx context.Context, chainID, hash string) (TrackResponse, error) {
	return t.register(ctx, chainID, hash, t.st.Retrack)
}

// register runs Track or Retry with the store's write (Register or Retrack): when it (re)opens
// the transfer, this replica holds it and the tx is looked up by hash once, since a block
// the scanner passed before may hold it; its events are stored as a scan would have.
func (t *Tracker) register(ctx context.Context, chainID, hash string,
	write func(ctx context.Context, chainID, hash, owner string, now time.Time, lease time.Duration, doc []byte) (bool, error)) (TrackResponse, error) {
	hash, err := NormalizeHash(hash)
	if err != nil {
		return TrackResponse{}, err
	}
	rpc, err := t.client(chainID)
	evm, everr := t.evmClient(chainID) // an EVM chain instead (evmscan.go)
	if err != nil && everr != nil {
		return TrackResponse{}, err
	}
	doc, _ := json.Marshal(submitted())
	now := t.cfg.Now()
	opened, err := write(ctx, chainID, hash, t.cfg.Owner, now, t.cfg.Lease, doc)
	if err != nil {
		return TrackResponse{}, err
	}
	if opened {
		t.mu.Lock()
		k := tkey{chainID, hash}
		t.held[k] = &held{created: now}
		t.dirty[k] = true
		t.mu.Unlock()
		lookup := func() error { return t.lookup(ctx, chainID, hash, rpc) }
		if rpc == nil {
			lookup = func() error { return t.evmLookup(ctx, chainID, hash, evm) }
		}
		// Not while the chain is halted or behind: its node's answer is not the scanned chain's.
		if t.lookupAllowed(ctx, chainID) {
			if err := lookup(); err != nil {
				t.log.Debug("track lookup", "chain", chainID, "hash", hash, "err", err)
			}
		}
		t.poke()
	}
	return TrackResponse{TxHash: DisplayHash(t.live.Current(), chainID, hash), ExplorerLink: ExplorerLink(t.live.Current(), chainID, hash)}, nil
}

func (t *Tracker) lookup(ctx context.Context, chainID, hash string, rpc *comet.Client) error {
	res, err := rpc.Tx(ctx, hash, false)
	if err != nil {
		if comet.IsNotFound(err) {
			return nil // not included yet: the scanner will see it
		}
		return err
	}
	blk, err := rpc.Block(ctx, res.Height)
	if err != nil {
		return err
	}
	at := blk.Block.Header.Time.UTC()
	return t.st.InsertEvents(ctx, extract(chainID, res.Height, int(res.Index), hash, at, &res.TxResult, true))
}

// Submit broadcasts a signed tx (base64 TxRaw) to the chain's RPC with broadcast_tx_sync and
// tracks it.
func (t *Tracker) Submit(ctx context.Context, chainID string, tx []byte) (TrackResponse, error) {
	rpc, err := t.client(chainID)
	if err != nil {
		return TrackResponse{}, err
	}
	res, err := rpc.BroadcastTxSync(ctx, tx)
	if err != nil {
		return TrackResponse{}, fmt.Errorf("broadcast to %s: %w", chainID, err)
	}
	if res.Code != 0 {
		return TrackResponse{}, &RejectedError{Code: res.Code, Codespace: res.Codespace, Log: res.Log}
	}
	return t.Track(ctx, chainID, TxHash(tx))
}

// Status returns the last computed /v2/tx/status answer (ErrNotFound for an unregistered
// (chain, hash)).
func (t *Tracker) Status(ctx context.Context, chainID, hash string) (json.RawMessage, error) {
	hash, err := NormalizeHash(hash)
	if err != nil {
		return nil, err
	}
	tr, err := t.st.Get(ctx, chainID, hash)
	if err != nil {
		return nil, err
	}
	return tr.Doc, nil
}

// Run scans every watched chain and keeps the held transfers' status current until ctx ends;
// then it gives up its leases so another replica takes over at once.
func (t *Tracker) Run(ctx context.Context) error {
	// A transient database error is retried with backoff by the loop that met it; a
	// permanent one stops them all and is returned.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var once sync.Once
	var fatal error
	fail := func(err error) {
		once.Do(func() { fatal = fmt.Errorf("%w: %w", errStoreFailed, err) })
		stop()
	}
	var wg sync.WaitGroup
	for _, c := range t.live.Current().Chains {
		rpc, err := t.client(c.ID)
		if evm, everr := t.evmClient(c.ID); err != nil && everr == nil {
			wg.Add(1)
			go func(id string) {
				defer wg.Done()
				t.evmScanLoop(ctx, id, evm, &failures{t: t, what: "track scan", fatal: fail, upstream: true})
			}(c.ID)
			continue
		}
		if err != nil {
			continue // not a chain we can follow (no RPC)
		}
		wg.Add(1)
		go func(id string) {
			defer wg.Done()
			t.scanLoop(ctx, id, rpc, &failures{t: t, what: "track scan", fatal: fail, upstream: true})
		}(c.ID)
	}
	t.evalLoop(ctx, &failures{t: t, what: "track round", fatal: fail})
	wg.Wait()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return errors.Join(fatal, t.st.Release(rctx, t.cfg.Owner))
}

// Step scans every watched chain up to its tip and evaluates what changed, once, in the
// caller's goroutine: tests and tools drive the tracker block by block with it (Run does the
// same continuously).
func (t *Tracker) Step(ctx context.Context) error {
	for _, c := range t.live.Current().Chains {
		rpc, err := t.client(c.ID)
		if err != nil {
			if err := t.evmStep(ctx, c.ID); err != nil {
				return err
			}
			continue
		}
		for {
			n, err := t.scanPass(ctx, c.ID, rpc)
			if err != nil {
				return err
			}
			if n < t.cfg.Batch {
				break
			}
		}
	}
	return t.round(ctx)
}

func (t *Tracker) evalLoop(ctx context.Context, f *failures) {
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		err := t.round(ctx)
		if ctx.Err() != nil {
			return
		}
		wait, stop := f.next(err)
		if stop {
			return
		}
		if wait > 0 {
			// The database is away: wait it out, events and ticks included.
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-t.wake:
		}
	}
}

// round claims transfers, marks those whose awaited events arrived (or whose recheck time
// came) and evaluates them.
func (t *Tracker) round(ctx context.Context) error {
	now := t.cfg.Now()
	if now.Sub(t.lastClaim) >= t.cfg.Lease/3 || t.newWork.Swap(false) {
		// Fewer fresh rows per claim while faults repeat (sqldb.WriteSize): the held ones are
		// renewed whatever the size.
		limit := t.claimSize.Take(t.cfg.ClaimBatch)
		claimed, fresh, err := t.st.Claim(ctx, t.cfg.Owner, now, t.cfg.Lease, limit)
		for t.claimSize.Done(limit, t.cfg.ClaimBatch, err) {
			limit = t.claimSize.Take(t.cfg.ClaimBatch)
			claimed, fresh, err = t.st.Claim(ctx, t.cfg.Owner, now, t.cfg.Lease, limit)
		}
		if err != nil {
			return err
		}
		if fresh == limit {
			t.newWork.Store(true) // more may be waiting: claim again next round
		}
		t.lastClaim = now
		keep := make(map[tkey]bool, len(claimed))
		t.mu.Lock()
		for _, c := range claimed {
			k := tkey{c.ChainID, c.TxHash}
			keep[k] = true
			if _, ok := t.held[k]; !ok {
				t.held[k] = &held{created: c.Created}
				t.dirty[k] = true
			}
		}
		for k, h := range t.held {
			// Registered here after the claim's read: ours, just not in that answer.
			if !keep[k] && h.created.Before(now) {
				t.drop(k)
			}
		}
		t.mu.Unlock()
	}
	keys, last, err := t.st.Since(ctx, t.lastEvent, 1<<16)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.lastEvent = last
	for _, k := range keys {
		for tk := range t.waitIdx[k] {
			t.dirty[tk] = true
		}
	}
	sweep := now.Sub(t.lastSweep) >= t.cfg.Sweep
	if sweep {
		t.lastSweep = now
	}
	for k, h := range t.held {
		if sweep || (!h.recheck.IsZero() && !now.Before(h.recheck)) {
			t.dirty[k] = true
		}
	}
	todo := make([]tkey, 0, len(t.dirty))
	for k := range t.dirty {
		todo = append(todo, k)
	}
	clear(t.dirty)
	t.mu.Unlock()
	// All the marked transfers are evaluated together: their walks read the store in bulk, a
	// few queries per level of the walk rather than several per transfer (batch.go).
	var errs []error
	var done []evaluated
	if len(todo) > 0 {
		started := time.Now()
		held := make(map[tkey]*held, len(todo))
		t.mu.Lock()
		for _, k := range todo {
			if h, ok := t.held[k]; ok {
				held[k] = h
			}
		}
		t.mu.Unlock()
		keys := make([]tkey, 0, len(held))
		for _, k := range todo {
			if held[k] != nil {
				keys = append(keys, k)
			}
		}
		res, passes := evaluateBatch(ctx, t.st, t.live.Current(), t.cfg.Probe, now, t.cfg.AbandonAfter, keys,
			func(k tkey) time.Time { return held[k].created })
		t.evals.Add(int64(len(keys)))
		for _, r := range res {
			if r.err != nil {
				errs = append(errs, r.err)
				t.mu.Lock()
				t.dirty[r.k] = true // incomplete: again next round
				t.mu.Unlock()
				continue
			}
			doc, err := json.Marshal(r.resp)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			h := held[r.k]
			done = append(done, evaluated{k: r.k, h: h, state: r.resp.State, doc: doc, changed: !bytes.Equal(doc, h.doc),
				waits: r.ev.waits, recheck: r.ev.recheck})
		}
		t.log.Debug("track round", "evaluated", len(keys), "passes", passes, "took", time.Since(started))
	}
	if err := t.commit(ctx, done, now); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// evaluated is one transfer's fresh evaluation, not yet written.
type evaluated struct {
	k       tkey
	h       *held
	state   string
	doc     []byte
	changed bool
	waits   []EventKey
	recheck time.Time
}

// commit writes the round's changed statuses in one transaction, then updates what this
// replica holds and waits for.
func (t *Tracker) commit(ctx context.Context, done []evaluated, now time.Time) error {
	var ups []Update
	var idx []int
	for i, r := range done {
		if r.changed {
			ups = append(ups, Update{ChainID: r.k.chainID, TxHash: r.k.hash, State: r.state, Terminal: Terminal(r.state), Doc: r.doc})
			idx = append(idx, i)
		}
	}
	lost := map[int]bool{}
	if len(ups) > 0 {
		ok, err := t.apply(ctx, ups, now)
		if err != nil {
			t.mu.Lock()
			for _, i := range idx {
				t.dirty[done[i].k] = true
			}
			t.mu.Unlock()
			return err
		}
		for j, i := range idx {
			if ok[j] {
				t.writes.Add(1)
			}
			if !ok[j] {
				lost[i] = true // the lease went to another replica
			} else if t.cfg.Observe != nil {
				t.cfg.Observe(done[i].k.chainID, done[i].k.hash, done[i].state)
			}
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, r := range done {
		if lost[i] || Terminal(r.state) {
			t.drop(r.k)
			continue
		}
		h := r.h
		for _, w := range h.waits {
			delete(t.waitIdx[w], r.k)
			if len(t.waitIdx[w]) == 0 {
				delete(t.waitIdx, w)
			}
		}
		h.waits, h.recheck, h.doc = r.waits, r.recheck, r.doc
		for _, w := range h.waits {
			m := t.waitIdx[w]
			if m == nil {
				m = map[tkey]bool{}
				t.waitIdx[w] = m
			}
			m[r.k] = true
		}
	}
	return nil
}

// apply writes ups in one transaction while nothing fails; under repeated transient faults
// in smaller runs (sqldb.WriteSize), so that some commit between two faults. Each update is
// its own row, written only under this replica's lease, so runs commit what the whole would
// have; a run that committed before a later one failed is written again next round, to the
// same document.
func (t *Tracker) apply(ctx context.Context, ups []Update, now time.Time) ([]bool, error) {
	ok := make([]bool, 0, len(ups))
	for rest := ups; len(rest) > 0; {
		k := t.applySize.Take(len(rest))
		got, err := t.st.Apply(ctx, t.cfg.Owner, rest[:k], now)
		if t.applySize.Done(k, len(ups), err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		ok = append(ok, got...)
		rest = rest[k:]
	}
	return ok, nil
}

// drop forgets a transfer (terminal or claimed by another replica); t.mu held.
func (t *Tracker) drop(k tkey) {
	if h, ok := t.held[k]; ok {
		for _, w := range h.waits {
			delete(t.waitIdx[w], k)
			if len(t.waitIdx[w]) == 0 {
				delete(t.waitIdx, w)
			}
		}
	}
	delete(t.held, k)
	delete(t.dirty, k)
}
