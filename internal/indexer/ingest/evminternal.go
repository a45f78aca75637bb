package ingest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

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

// internalTxJSON is the API's internal tx object, in the peer's field order (notes §2.5).
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
// pointing at its parent's index. Values are re-encoded as the peer stores them (bytes, then
// "0x" + even-length hex: "0x186a0" → "0x0186a0", "0x0" → "0x00", absent → "0x"); the top
// frame's output is always "0x" (the peer does not keep it). A tx whose trace failed (an
// element with "error" instead of "result") is skipped, as at the peer; frames that reverted
// are kept.
func (x *AccountExtractor) FlattenTraces(height int64, raw json.RawMessage) ([]store.InternalTx, error) {
	var traces []struct {
		TxHash string     `json:"txHash"`
		Result *callFrame `json:"result"`
		Error  string     `json:"error"`
	}
	if err := json.Unmarshal(raw, &traces); err != nil {
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
			b, err := json.Marshal(item)
			if err != nil {
				return err
			}
			it.JSON = b
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

// frameAddr renders a frame's address as the peer does (lowercase 20-byte 0x hex, "" when
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

// evenHex is the peer's bytes round trip of a hex value: "0x" + lowercase, even-length hex.
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
	// EVMTxHeights lists the heights in [from, to] holding EVM txs, ascending.
	EVMTxHeights(ctx context.Context, from, to int64) ([]int64, error)
	WriteInternalTxs(ctx context.Context, blocks []store.InternalBlock) error
}

// InternalConfig tunes the internal-tx follower; zero fields take their defaults.
type InternalConfig struct {
	AccountPrefix string        // bech32 prefix (addresses are parsed as the peer does); default "init"
	Concurrency   int           // traces in flight; default 4
	MaxHeights    int           // heights per write; default 20 (small steps keep it close behind the block writer)
	PollInterval  time.Duration // wait when caught up with the block writer; default 500 ms
	RetryMin      time.Duration // backoff bounds of a failing trace or write; defaults 200 ms, 10 s
	RetryMax      time.Duration
	StopAtHeight  int64 // > 0: Run returns once internal txs are stored up to this height (tests)
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
func (f *InternalFollower) Run(ctx context.Context) error {
	failures := 0
	for ctx.Err() == nil {
		done, err := f.step(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			wait := min(f.cfg.RetryMin<<min(failures, 16), f.cfg.RetryMax)
			failures++
			f.log.Warn("internal txs: retrying", "err", err, "attempt", failures, "wait", wait)
			sleep(ctx, wait)
		case done:
			return nil
		default:
			failures = 0
		}
	}
	return nil
}

// step stores the next run of heights, or waits a poll interval when there is none; it
// reports whether StopAtHeight is reached.
func (f *InternalFollower) step(ctx context.Context) (bool, error) {
	ih, err := f.st.InternalTxHeight(ctx)
	if err != nil {
		return false, err
	}
	if f.cfg.StopAtHeight > 0 && ih >= f.cfg.StopAtHeight {
		return true, nil
	}
	top, err := f.st.IndexedHeight(ctx)
	if err != nil {
		return false, err
	}
	if top <= ih {
		sleep(ctx, f.cfg.PollInterval)
		return false, nil
	}
	to := min(top, ih+int64(f.cfg.MaxHeights))
	hs, err := f.st.EVMTxHeights(ctx, ih+1, to)
	if err != nil {
		return false, err
	}
	blocks := make([]store.InternalBlock, len(hs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(f.cfg.Concurrency)
	for i, h := range hs {
		g.Go(func() error {
			raw, err := f.src.TraceBlock(gctx, h)
			if err != nil {
				return fmt.Errorf("trace %d: %w", h, err)
			}
			txs, err := f.x.FlattenTraces(h, raw)
			if err != nil {
				return err
			}
			blocks[i] = store.InternalBlock{Height: h, Txs: txs}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if errors.Is(err, ErrFutureHeight) {
			// A node behind the one the blocks came from: wait, do not count a failure.
			sleep(ctx, f.cfg.PollInterval)
			return false, nil
		}
		return false, err
	}
	if len(blocks) == 0 || blocks[len(blocks)-1].Height != to {
		blocks = append(blocks, store.InternalBlock{Height: to}) // the heights without EVM txs are done too
	}
	if err := f.st.WriteInternalTxs(ctx, blocks); err != nil {
		return false, err
	}
	return f.cfg.StopAtHeight > 0 && to >= f.cfg.StopAtHeight, nil
}
