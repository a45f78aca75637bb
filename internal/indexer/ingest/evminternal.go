package ingest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rollgate/rollgate/internal/jsonx"
	"github.com/rollgate/rollgate/internal/store"
)

// callFrame is one frame of a callTracer trace.
type callFrame struct {
	Type    string      `json:"type"`
	From    string      `json:"from"`
	To      string      `json:"to"`
	Value   string      `json:"value"`
	Gas     string      `json:"gas"`
	GasUsed string      `json:"gasUsed"`
	Input   string      `json:"input"`
	Output  string      `json:"output"`
	Calls   []callFrame `json:"calls"`
}

// internalTxJSON is the API's internal tx object, in rollytics' field order (docs/contract/indexer-rollytics.md §2.5).
type internalTxJSON struct {
	Height      int64  `json:"height"`
	Hash        string `json:"hash"`
	ParentIndex int    `json:"parent_index"`
	Index       int    `json:"index"`
	Type        string `json:"type"`
	From        string `json:"from"`
	To          string `json:"to"`
	Input       string `json:"input"`
	Output      string `json:"output"`
	Value       string `json:"value"`
	Gas         string `json:"gas"`
	GasUsed     string `json:"gasUsed"`
}

// FlattenTraces turns a debug_traceBlockByNumber (callTracer) result into internal txs: per
// traced tx, every frame in pre-order, the top frame index 0 with parent -1 and each child
// pointing at its parent's index. Values are re-encoded as rollytics stores them (bytes, then
// "0x" + even-length hex: "0x186a0" → "0x0186a0", "0x0" → "0x00", absent → "0x"); the top
// frame's output is always "0x" (rollytics does not keep it). A tx whose trace failed (an
// element with "error" instead of "result") is skipped, as in rollytics; frames that reverted
// are kept.
func (x *AccountExtractor) FlattenTraces(height int64, raw json.RawMessage) ([]store.InternalTx, error) {
	var traces []struct {
		TxHash string     `json:"txHash"`
		Result *callFrame `json:"result"`
		Error  string     `json:"error"`
	}
	if err := jsonx.Unmarshal(raw, &traces); err != nil {
		return nil, fmt.Errorf("height %d: %w: trace: %w", height, ErrInvalidData, err)
	}
	var out []store.InternalTx
	for _, tr := range traces {
		if tr.Error != "" || tr.Result == nil {
			continue
		}
		hash, err := hex.DecodeString(evenHex(tr.TxHash)[2:])
		if err != nil {
			return nil, fmt.Errorf("height %d: %w: trace txHash %q", height, ErrInvalidData, tr.TxHash)
		}
		hashHex := "0x" + hex.EncodeToString(hash)
		next := 0
		var visit func(f *callFrame, parent int) error
		visit = func(f *callFrame, parent int) error {
			idx := next
			next++
			item := internalTxJSON{Height: height, Hash: hashHex, ParentIndex: parent, Index: idx, Type: f.Type,
				Input: evenHex(f.Input), Output: evenHex(f.Output), Value: evenHex(f.Value), Gas: evenHex(f.Gas), GasUsed: evenHex(f.GasUsed)}
			if parent < 0 {
				item.Output = "0x"
			}
			var it store.InternalTx
			it.Hash = hash
			item.From, it.From = x.frameAddr(f.From)
			item.To, it.To = x.frameAddr(f.To)
			for _, v := range []string{item.Input, item.Output, item.Value, item.Gas, item.GasUsed} {
				if _, err := hex.DecodeString(v[2:]); err != nil {
					return fmt.Errorf("height %d: %w: trace of %s: bad hex %.40q", height, ErrInvalidData, hashHex, v)
				}
			}
			it.JSON = item.appendJSON(make([]byte, 0, 160+len(item.Input)+len(item.Output)))
			out = append(out, it)
			for i := range f.Calls {
				if err := visit(&f.Calls[i], idx); err != nil {
					return err
				}
			}
			return nil
		}
		if err := visit(tr.Result, -1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// frameAddr renders a frame's address as rollytics does (lowercase 20-byte 0x hex, "" when
// absent) and returns its bytes for the account edges.
func (x *AccountExtractor) frameAddr(s string) (string, []byte) {
	if s == "" {
		return "", nil
	}
	a, ok := x.ParseAddress(s)
	if !ok {
		return "", nil
	}
	return "0x" + hex.EncodeToString(a), a
}

// evenHex is rollytics' bytes round trip of a hex value: "0x" + lowercase, even-length hex.
func evenHex(s string) string {
	h := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
	if len(h)%2 == 1 {
		h = "0" + h
	}
	return "0x" + h
}

// InternalStore is the store as the internal-tx follower sees it.
type InternalStore interface {
	IndexedHeight(ctx context.Context) (int64, error)
	InternalTxHeight(ctx context.Context) (int64, error)
	// EVMTxHashes lists the heights in [from, to] holding EVM txs, ascending, with their
	// txs' hashes.
	EVMTxHashes(ctx context.Context, from, to int64) ([]store.EVMTxsAt, error)
	WriteInternalTxs(ctx context.Context, blocks []store.InternalBlock) error
}

// InternalConfig tunes the internal-tx follower; zero fields take their defaults.
type InternalConfig struct {
	AccountPrefix string        // bech32 prefix (addresses are parsed as rollytics does); default "init"
	Concurrency   int           // traces in flight; default 4
	MaxHeights    int           // heights per write; default 20 (small steps keep it close behind the block writer), ×10 while more than ten runs behind
	PollInterval  time.Duration // wait when caught up with the block writer; default 500 ms
	RetryMin      time.Duration // backoff bounds of a failing trace or write; defaults 200 ms, 10 s
	RetryMax      time.Duration
	StopAtHeight  int64 // > 0: Run returns once internal txs are stored up to this height (tests)

	// CoreBehind, when set, reports how many heights the block writer is behind the chain
	// head. While that is more than YieldAbove, the follower leaves the two cores to block
	// ingestion until it is YieldLag heights behind the writer: traces and their writes
	// (on SQLite, the one write lock) otherwise slow every block's way to the top, and the
	// heights it skipped are traced after, in the same number of calls. nil: never yields.
	CoreBehind func() int64
	YieldAbove int64 // default 20 (the pipeline's ReadyMaxLag)
	YieldLag   int64 // default 2000: a real node's catch-up keeps internal txs this close
}

// InternalFollower traces the blocks the pipeline has written that hold EVM txs and stores
// their internal txs. It runs beside the pipeline with its own height (InternalTxHeight), so a
// slow or failing trace endpoint delays internal txs only, never block ingestion.
type InternalFollower struct {
	cfg InternalConfig
	src EVMSource
	st  InternalStore
	x   *AccountExtractor
	log *slog.Logger

	top, height atomic.Int64 // the block writer's height as last read; internal txs stored up to
	mu          sync.Mutex
	behind      error     // why the last attempt failed, until one succeeds
	size        writeSize // the writer stage's heights per write under repeated faults
}

// NotReadyInternalTxs: the internal txs lag the indexed blocks.
const NotReadyInternalTxs = "INTERNAL_TX_BEHIND"

// Ready reports, for /readyz, whether internal txs are within maxLag blocks of the indexed
// blocks: nil when they are, a *NotReadyError (INTERNAL_TX_BEHIND) naming the last failure
// otherwise. Block ingestion goes on either way.
func (f *InternalFollower) Ready(maxLag int64) error {
	top, h := f.top.Load(), f.height.Load()
	if top-h <= maxLag {
		return nil
	}
	msg := fmt.Sprintf("internal txs are %d blocks behind the indexed blocks (internal_tx_height %d, indexed %d)", top-h, h, top)
	f.mu.Lock()
	if f.behind != nil {
		msg += fmt.Sprintf(" (last error: %v)", f.behind)
	}
	f.mu.Unlock()
	return &NotReadyError{Reason: NotReadyInternalTxs, Message: msg}
}

// NewInternalFollower returns a follower; a nil logger discards logs.
func NewInternalFollower(cfg InternalConfig, src EVMSource, st InternalStore, logger *slog.Logger) *InternalFollower {
	if cfg.AccountPrefix == "" {
		cfg.AccountPrefix = "init"
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.MaxHeights <= 0 {
		cfg.MaxHeights = 20
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 500 * time.Millisecond
	}
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = 200 * time.Millisecond
	}
	if cfg.YieldAbove <= 0 {
		cfg.YieldAbove = 20
	}
	if cfg.YieldLag <= 0 {
		cfg.YieldLag = 2000
	}
	if cfg.RetryMax < cfg.RetryMin {
		cfg.RetryMax = max(10*time.Second, cfg.RetryMin)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &InternalFollower{cfg: cfg, src: src, st: st, x: NewAccountExtractor(cfg.AccountPrefix), log: logger}
}

// Run follows until ctx is cancelled (then it returns nil) or StopAtHeight is stored. Errors
// are retried with backoff without limit: internal txs are an extension, and giving up would
// only leave internal_tx_height behind for good.
//
// A stretch of failures is one warn line (the rest at debug) and one info line when writes
// resume, so a trace endpoint that stays down does not log a line a retry.
func (f *InternalFollower) Run(ctx context.Context) error {
	failures := 0
	for ctx.Err() == nil {
		wrote, err := f.follow(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err == nil:
			return nil // StopAtHeight stored
		default:
			if wrote {
				failures = 0
			}
			wait := min(f.cfg.RetryMin<<min(failures, 16), f.cfg.RetryMax)
			failures++
			f.mu.Lock()
			first := f.behind == nil
			f.behind = err
			f.mu.Unlock()
			if first {
				f.log.Warn("internal txs behind the blocks; retrying on their own, blocks go on", "err", err,
					"internal_tx_height", f.height.Load(), "indexed_height", f.top.Load())
			} else {
				f.log.Debug("internal txs: retrying", "err", err, "attempt", failures, "wait", wait)
			}
			sleep(ctx, wait)
		}
	}
	return nil
}

// wrote records a stored run, ending a stretch of failures.
func (f *InternalFollower) wrote(to int64) {
	f.height.Store(to)
	f.mu.Lock()
	recovered := f.behind != nil
	f.behind = nil
	f.mu.Unlock()
	if recovered {
		f.log.Info("internal txs writing again", "internal_tx_height", to)
	}
}

// traced is one run of heights, traced and flattened, ready to write.
type traced struct {
	blocks []store.InternalBlock
	to     int64 // the run's last height (stored even when it holds no EVM tx)
}

// follow runs the follower as two stages from the stored internal height: one traces the next
// runs of heights (up to the block writer's height) while the other writes the previous one,
// so a slow write and a slow trace overlap instead of adding up. It returns nil once
// StopAtHeight is stored, else the first error (and whether anything was written before it);
// the caller starts again from what was stored.
func (f *InternalFollower) follow(ctx context.Context) (wrote bool, err error) {
	ih, err := f.st.InternalTxHeight(ctx)
	if err != nil {
		return false, err
	}
	f.height.Store(ih)
	if f.cfg.StopAtHeight > 0 && ih >= f.cfg.StopAtHeight {
		return false, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	runs := make(chan traced, 1) // one run traced ahead of the one being written
	g.Go(func() error {
		defer close(runs)
		return f.trace(gctx, ih+1, runs)
	})
	g.Go(func() error {
		for r := range runs {
			if err := f.writeRun(gctx, r.blocks); err != nil {
				return err
			}
			wrote = true
			f.wrote(r.to)
			if f.cfg.StopAtHeight > 0 && r.to >= f.cfg.StopAtHeight {
				return nil
			}
		}
		return gctx.Err()
	})
	return wrote, g.Wait()
}

// writeRun writes one traced run, in one transaction while nothing fails; under repeated
// transient faults in smaller runs of heights (writeSize), so that some commit between two
// faults. A write that still fails returns its error: Run tries again from what committed.
func (f *InternalFollower) writeRun(ctx context.Context, blocks []store.InternalBlock) error {
	for len(blocks) > 0 {
		n := f.size.Take(len(blocks))
		err := f.st.WriteInternalTxs(ctx, blocks[:n])
		if f.size.Done(n, 10*f.cfg.MaxHeights, err) { // a run is up to ten times MaxHeights far behind
			continue
		}
		if err != nil {
			return err
		}
		blocks = blocks[n:]
	}
	return nil
}

// trace sends runs of at most MaxHeights heights from next on, each once the block writer has
// stored it, until StopAtHeight is sent or ctx ends.
func (f *InternalFollower) trace(ctx context.Context, next int64, out chan<- traced) error {
	var written func() <-chan struct{}
	if w, ok := f.st.(interface{ Written() <-chan struct{} }); ok {
		written = w.Written
	}
	for ctx.Err() == nil {
		if f.cfg.StopAtHeight > 0 && next > f.cfg.StopAtHeight {
			return nil
		}
		var wake <-chan struct{}
		if written != nil {
			wake = written() // before the height is read: a write in between still wakes us
		}
		top, err := f.st.IndexedHeight(ctx)
		if err != nil {
			return err
		}
		f.top.Store(top)
		if top < next || f.yield(top, next) {
			f.waitForBlocks(ctx, wake)
			continue
		}
		// Far behind (after yielding to a catching-up writer, or a restart) a run is ten
		// times longer: a tenth of the write transactions for the same traces.
		run := int64(f.cfg.MaxHeights)
		if top-next+1 > 10*run {
			run *= 10
		}
		to := min(top, next+run-1)
		blocks, err := f.traceRange(ctx, next, to)
		if errors.Is(err, ErrFutureHeight) {
			// A node behind the one the blocks came from: wait, do not count a failure.
			sleep(ctx, f.cfg.PollInterval)
			continue
		}
		if err != nil {
			return err
		}
		select {
		case out <- traced{blocks: blocks, to: to}:
		case <-ctx.Done():
			return ctx.Err()
		}
		next = to + 1
	}
	return ctx.Err()
}

// yield reports whether the follower should leave the machine to a block writer that is
// catching up (InternalConfig.CoreBehind), with next the first height it has not traced.
func (f *InternalFollower) yield(top, next int64) bool {
	if f.cfg.CoreBehind == nil || f.cfg.CoreBehind() <= f.cfg.YieldAbove {
		return false
	}
	return top-next+1 < f.cfg.YieldLag
}

// waitForBlocks waits for the block writer: its next commit in this process, or a poll
// interval (a writer in another process wakes no one).
func (f *InternalFollower) waitForBlocks(ctx context.Context, wake <-chan struct{}) {
	t := time.NewTimer(f.cfg.PollInterval)
	defer t.Stop()
	select {
	case <-wake:
	case <-t.C:
	case <-ctx.Done():
	}
}

// traceRange traces the heights in [from, to] that hold EVM txs, Concurrency at a time.
func (f *InternalFollower) traceRange(ctx context.Context, from, to int64) ([]store.InternalBlock, error) {
	hs, err := f.st.EVMTxHashes(ctx, from, to)
	if err != nil {
		return nil, err
	}
	blocks := make([]store.InternalBlock, len(hs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(f.cfg.Concurrency)
	for i, at := range hs {
		h := at.Height
		g.Go(func() error {
			raw, err := f.src.TraceBlock(gctx, h)
			if err != nil {
				return fmt.Errorf("trace %d: %w", h, err)
			}
			txs, err := f.x.FlattenTraces(h, raw)
			if err != nil {
				return err
			}
			if err := tracesOfStored(at, txs); err != nil {
				return err
			}
			blocks[i] = store.InternalBlock{Height: h, Txs: txs}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if len(blocks) == 0 || blocks[len(blocks)-1].Height != to {
		blocks = append(blocks, store.InternalBlock{Height: to}) // the heights without EVM txs are done too
	}
	return blocks, nil
}

// errTraceOfOtherChain: a trace names a tx the store does not hold at that height. The
// follower traces heights the block writer stored; a node that now serves another chain (a
// reset under the same URL) answers with that chain's txs, which must not be stored as the
// internal txs of the stored chain's blocks. The follower retries (and reports itself behind)
// until the node serves the stored chain again; the block writer meanwhile halts on
// CHAIN_MISMATCH.
var errTraceOfOtherChain = errors.New("the trace names a tx the store does not hold at this height (the node serves another chain?)")

// tracesOfStored checks that every internal tx traced at at.Height belongs to one of the
// EVM txs stored there.
func tracesOfStored(at store.EVMTxsAt, txs []store.InternalTx) error {
	for i := range txs {
		if i > 0 && bytes.Equal(txs[i].Hash, txs[i-1].Hash) {
			continue // the frames of one tx share its hash
		}
		if !slices.ContainsFunc(at.Hashes, func(h []byte) bool { return bytes.Equal(h, txs[i].Hash) }) {
			return fmt.Errorf("height %d: %w: 0x%x", at.Height, errTraceOfOtherChain, txs[i].Hash)
		}
	}
	return nil
}
