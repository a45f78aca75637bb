package ingest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"

	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	"github.com/rollgate/rollgate/internal/store"
)

// fakeChain is a synthetic chain: height h has h%4 txs, blocks 700 ms apart, one validator.
// It can grow (head), fail (flaky) and lag (REST behind RPC).
type fakeChain struct {
	head  atomic.Int64
	flaky float64 // probability that any call fails with a transport error
	seed  byte    // 0 for the usual chain; another value is another chain with the same id (a reset)

	mu    sync.Mutex
	rng   *rand.Rand
	calls map[string]int
}

var genesisTime = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// valKey is an ed25519 consensus key; its address is sha256(key)[:20].
var valKey = []byte("0123456789abcdef0123456789abcdef")

func newFakeChain(head int64, flaky float64) *fakeChain {
	c := &fakeChain{flaky: flaky, rng: rand.New(rand.NewPCG(1, 2)), calls: map[string]int{}}
	c.head.Store(head)
	return c
}

func (c *fakeChain) fail(call string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[call]++
	if c.flaky > 0 && c.rng.Float64() < c.flaky {
		return fmt.Errorf("%s: connection reset (injected)", call)
	}
	return nil
}

func (c *fakeChain) LatestHeight(ctx context.Context) (int64, error) {
	if err := c.fail("status"); err != nil {
		return 0, err
	}
	return c.head.Load(), nil
}

func fakeTxs(h int64) int { return int(h % 4) }

func fakeTx(h int64, i int) []byte {
	b, _ := proto.Marshal(&txv1beta1.TxRaw{BodyBytes: []byte{byte(h), byte(i)}, AuthInfoBytes: []byte{1}, Signatures: [][]byte{[]byte(fmt.Sprintf("sig-%d-%d", h, i))}})
	return b
}

func (c *fakeChain) Block(ctx context.Context, h int64) (*RawBlock, error) {
	if err := c.fail("block"); err != nil {
		return nil, err
	}
	if h > c.head.Load() {
		return nil, fmt.Errorf("height %d: %w", h, ErrFutureHeight)
	}
	proposer, _ := pubKeyAddress("/cosmos.crypto.ed25519.PubKey", valKey)
	b := &RawBlock{ChainID: "fake-1", Height: h, Hash: c.hash(h), ProposerAddress: proposer,
		Time: genesisTime.Add(time.Duration(h) * 700 * time.Millisecond)}
	if h > 1 {
		b.LastHash = c.hash(h - 1)
	}
	for i := range fakeTxs(h) {
		b.Txs = append(b.Txs, fakeTx(h, i))
	}
	return b, nil
}

// BlockHash is the fake's /blockchain: block h's hash alone (blockHasher).
func (c *fakeChain) BlockHash(ctx context.Context, h int64) ([]byte, error) {
	if err := c.fail("blockchain"); err != nil {
		return nil, err
	}
	if h > c.head.Load() {
		return nil, fmt.Errorf("height %d: %w", h, ErrFutureHeight)
	}
	return c.hash(h), nil
}

// hash is block h's block_id.hash.
func (c *fakeChain) hash(h int64) []byte {
	if c.seed == 0 {
		return []byte{byte(h >> 8), byte(h)}
	}
	return []byte{c.seed, byte(h >> 8), byte(h)}
}

func (c *fakeChain) BlockResults(ctx context.Context, h int64) ([]TxResult, error) {
	if err := c.fail("block_results"); err != nil {
		return nil, err
	}
	if h > c.head.Load() {
		return nil, fmt.Errorf("height %d: %w", h, ErrFutureHeight)
	}
	var out []TxResult
	for i := range fakeTxs(h) {
		out = append(out, TxResult{GasWanted: 1000, GasUsed: int64(100 + i), Log: c.resultsMark(), Events: []Event{
			{Type: "transfer", Attributes: []EventAttribute{{Key: "recipient", Value: "init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqpqr5e3d", Index: true}}},
		}})
	}
	return out, nil
}

// resultsMark is the raw_log of every tx result: empty on the usual chain, naming the seed on
// another, so a test can tell whose results a stored height holds.
func (c *fakeChain) resultsMark() string {
	if c.seed == 0 {
		return ""
	}
	return fmt.Sprintf("results of chain %d", c.seed)
}

func (c *fakeChain) BlockTxs(ctx context.Context, h int64) ([]json.RawMessage, error) {
	if err := c.fail("txs"); err != nil {
		return nil, err
	}
	var out []json.RawMessage
	for i := range fakeTxs(h) {
		sig := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("sig-%d-%d", h, i)))
		out = append(out, json.RawMessage(fmt.Sprintf(`{"body":{"messages":[{"@type":"/cosmos.bank.v1beta1.MsgSend"}]},"auth_info":{"signer_infos":[],"fee":{"amount":[{"denom":"umin","amount":"%d"}]}},"signatures":[%q]}`, i+1, sig)))
	}
	return out, nil
}

func (c *fakeChain) Validators(ctx context.Context) ([]Validator, error) {
	if err := c.fail("validators"); err != nil {
		return nil, err
	}
	return []Validator{{Moniker: "node0", OperatorAddress: "initvaloper1test", ConsensusPubKeyType: "/cosmos.crypto.ed25519.PubKey", ConsensusPubKey: valKey}}, nil
}

// memWriter is a store.Writer that enforces the contract: consecutive ascending heights
// starting at IndexedHeight()+1, all or nothing per call.
type memWriter struct {
	mu      sync.Mutex
	blocks  []store.BlockBundle
	batches []int
	failN   int           // fail this many calls (after the first) with a transient error
	delay   time.Duration // time each write takes, like a commit
	calls   int
	onWrite func(last int64)
}

func (w *memWriter) WriteBlocks(ctx context.Context, bundles []store.BlockBundle) error {
	time.Sleep(w.delay)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	if w.failN > 0 && w.calls%2 == 0 {
		w.failN--
		return errors.New("database is locked (injected)")
	}
	if len(bundles) == 0 {
		return errors.New("empty batch")
	}
	want := int64(0)
	if len(w.blocks) > 0 {
		want = w.blocks[len(w.blocks)-1].Block.Height + 1
	}
	for i, b := range bundles {
		if (want != 0 || i > 0) && b.Block.Height != want {
			return fmt.Errorf("height %d written, want %d", b.Block.Height, want)
		}
		want = b.Block.Height + 1
	}
	w.blocks = append(w.blocks, bundles...)
	w.batches = append(w.batches, len(bundles))
	if w.onWrite != nil {
		w.onWrite(bundles[len(bundles)-1].Block.Height)
	}
	return nil
}

func (w *memWriter) IndexedHeight(ctx context.Context) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.blocks) == 0 {
		return 0, nil
	}
	return w.blocks[len(w.blocks)-1].Block.Height, nil
}

func fastConfig() Config {
	return Config{Concurrency: 4, PollInterval: 5 * time.Millisecond, RetryMin: time.Millisecond, RetryMax: 5 * time.Millisecond}
}

func runPipeline(t *testing.T, cfg Config, src Source, w store.Writer, reg prometheus.Registerer) {
	t.Helper()
	p, err := New(cfg, src, w, nil, reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("Run did not stop at StopAtHeight")
	}
}

// checkChain verifies every stored height from..to against the fake chain's definition.
func checkChain(t *testing.T, w *memWriter, from, to int64) {
	t.Helper()
	if got := int64(len(w.blocks)); got != to-from+1 {
		t.Fatalf("%d blocks stored, want %d", got, to-from+1)
	}
	for i, b := range w.blocks {
		h := from + int64(i)
		if b.Block.Height != h {
			t.Fatalf("block %d has height %d, want %d", i, b.Block.Height, h)
		}
		wantBT := int64(700)
		if h == from && from == 1 {
			wantBT = 0
		}
		if b.Block.BlockTimeMs != wantBT {
			t.Errorf("height %d: block_time %d, want %d", h, b.Block.BlockTimeMs, wantBT)
		}
		if len(b.Txs) != fakeTxs(h) || b.Block.TxCount != fakeTxs(h) {
			t.Errorf("height %d: %d txs, want %d", h, len(b.Txs), fakeTxs(h))
		}
		if b.Block.Proposer == nil || b.Block.Proposer.OperatorAddress != "initvaloper1test" {
			t.Errorf("height %d: proposer %+v", h, b.Block.Proposer)
		}
	}
}

func TestPipelineWritesInOrderAndBatches(t *testing.T) {
	src := newFakeChain(500, 0)
	// Writes take a while, so blocks pile up behind each one and must be batched.
	w := &memWriter{delay: 2 * time.Millisecond}
	cfg := fastConfig()
	cfg.StopAtHeight = 500
	cfg.MaxBatchBlocks = 50
	reg := prometheus.NewRegistry()
	runPipeline(t, cfg, src, w, reg)
	checkChain(t, w, 1, 500)
	for _, n := range w.batches {
		if n > 50 {
			t.Errorf("batch of %d blocks exceeds MaxBatchBlocks 50", n)
		}
	}
	if len(w.batches) >= 500 {
		t.Errorf("catch-up wrote %d batches for 500 blocks: no batching", len(w.batches))
	}
	if got := counterValue(t, reg, "rollgate_ingest_indexed_height"); got != 500 {
		t.Errorf("indexed height metric %v", got)
	}
	// 500 heights, h%4 txs each: 125 × (0+1+2+3).
	if got := counterValue(t, reg, "rollgate_ingest_txs_written_total"); got != 750 {
		t.Errorf("txs written metric %v, want 750", got)
	}
}

func TestPipelineMaxBatchTxs(t *testing.T) {
	src := newFakeChain(200, 0)
	w := &memWriter{delay: 2 * time.Millisecond}
	cfg := fastConfig()
	cfg.StopAtHeight = 200
	cfg.MaxBatchTxs = 10
	runPipeline(t, cfg, src, w, nil)
	checkChain(t, w, 1, 200)
	i := 0
	for _, n := range w.batches {
		txs := 0
		for _, b := range w.blocks[i : i+n] {
			txs += len(b.Txs)
		}
		// A batch closes as soon as it reaches the limit, so it may pass it by one block.
		if txs-len(w.blocks[i+n-1].Txs) >= 10 {
			t.Errorf("batch at height %d holds %d txs, limit 10", w.blocks[i].Block.Height, txs)
		}
		i += n
	}
}

func TestPipelineRetriesFlakySourceAndWriter(t *testing.T) {
	src := newFakeChain(300, 0.2)
	w := &memWriter{failN: 3}
	cfg := fastConfig()
	cfg.StopAtHeight = 300
	cfg.MaxBatchBlocks = 20 // at least 15 writes, so the three injected failures all happen
	reg := prometheus.NewRegistry()
	runPipeline(t, cfg, src, w, reg)
	checkChain(t, w, 1, 300)
	if got := counterValue(t, reg, "rollgate_ingest_fetch_retries_total"); got == 0 {
		t.Error("a 20 % flaky source caused no retry")
	}
	if got := counterValue(t, reg, "rollgate_ingest_write_retries_total"); got != 3 {
		t.Errorf("write retries %v, want 3", got)
	}
}

func TestPipelineFollowsGrowingChain(t *testing.T) {
	src := newFakeChain(20, 0)
	w := &memWriter{}
	var grow sync.Once
	w.onWrite = func(last int64) {
		// Once the first blocks are in, the chain grows one block at a time, each only after
		// the previous one is indexed: the pipeline must wait at the tip and pick them up.
		grow.Do(func() {
			go func() {
				for src.head.Load() < 60 {
					time.Sleep(3 * time.Millisecond)
					h, _ := w.IndexedHeight(context.Background())
					if h == src.head.Load() {
						src.head.Add(1)
					}
				}
			}()
		})
	}
	cfg := fastConfig()
	cfg.StopAtHeight = 60
	runPipeline(t, cfg, src, w, nil)
	checkChain(t, w, 1, 60)
	// Heights 21..60 appeared one by one after the tip was reached: each is its own batch.
	tail := 0
	for i := len(w.batches) - 1; i >= 0 && tail < 40; i-- {
		if w.batches[i] != 1 {
			t.Errorf("batch %d at the tip holds %d blocks, want 1", i, w.batches[i])
		}
		tail += w.batches[i]
	}
}

// futureOnce is a node behind a balancer whose status comes from a node ahead of the one
// serving blocks: every height is asked first while the block server does not have it yet,
// so /block and /block_results both fail as future, and the next attempt finds it. Failing
// both on the same attempt (not by a moving head the two concurrent calls could straddle)
// makes each first attempt keep nothing, whatever the scheduling.
type futureOnce struct {
	*fakeChain
	mu   sync.Mutex
	seen map[string]bool
}

func (f *futureOnce) first(part string, h int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := fmt.Sprintf("%s/%d", part, h)
	if f.seen[k] {
		return false
	}
	f.seen[k] = true
	return true
}

func (f *futureOnce) Block(ctx context.Context, h int64) (*RawBlock, error) {
	if f.first("block", h) {
		return nil, fmt.Errorf("height %d: %w", h, ErrFutureHeight)
	}
	return f.fakeChain.Block(ctx, h)
}

func (f *futureOnce) BlockResults(ctx context.Context, h int64) ([]TxResult, error) {
	if f.first("block_results", h) {
		return nil, fmt.Errorf("height %d: %w", h, ErrFutureHeight)
	}
	return f.fakeChain.BlockResults(ctx, h)
}

// TestPipelineFutureHeightKeepsNothing: a height asked before the node serves it fails
// whole, so its next attempt reads it whole, and no block-hash check (meant for parts kept
// across a failure) is spent on it.
func TestPipelineFutureHeightKeepsNothing(t *testing.T) {
	chain := newFakeChain(60, 0)
	cfg := fastConfig()
	cfg.StopAtHeight = 60
	reg := prometheus.NewRegistry()
	w := &memWriter{}
	runPipeline(t, cfg, &futureOnce{fakeChain: chain, seen: map[string]bool{}}, w, reg)
	checkChain(t, w, 1, 60)
	if got := counterValue(t, reg, "rollgate_ingest_fetch_retries_total"); got < 60 {
		t.Fatalf("%v fetch retries, want one per height at least (60)", got)
	}
	chain.mu.Lock()
	hashes := chain.calls["blockchain"]
	chain.mu.Unlock()
	if hashes != 0 {
		t.Errorf("%d block-hash checks after failures that kept nothing, want 0", hashes)
	}
}

func TestPipelineResumesAfterStop(t *testing.T) {
	src := newFakeChain(120, 0)
	w := &memWriter{}
	cfg := fastConfig()
	cfg.StopAtHeight = 50
	runPipeline(t, cfg, src, w, nil)

	// Cancel a second run somewhere in the middle: what is stored must stay a prefix.
	ctx, cancel := context.WithCancel(context.Background())
	cfg.StopAtHeight = 0
	w.onWrite = func(last int64) {
		if last >= 80 {
			cancel()
		}
	}
	p, err := New(cfg, src, w, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(ctx); err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	w.onWrite = nil

	cfg.StopAtHeight = 120
	runPipeline(t, cfg, src, w, nil)
	// block_time of the first block after each restart comes from the chain, so it is 700
	// like every other, not 0.
	checkChain(t, w, 1, 120)
}

func TestPipelineStartHeight(t *testing.T) {
	src := newFakeChain(100, 0)
	w := &memWriter{}
	cfg := fastConfig()
	cfg.StartHeight = 40
	cfg.StopAtHeight = 100
	runPipeline(t, cfg, src, w, nil)
	if w.blocks[0].Block.Height != 40 || w.blocks[0].Block.BlockTimeMs != 0 {
		t.Fatalf("first block %d with block_time %d, want 40 with 0", w.blocks[0].Block.Height, w.blocks[0].Block.BlockTimeMs)
	}
	if got := len(w.blocks); got != 61 {
		t.Fatalf("%d blocks, want 61", got)
	}
}

// badChain serves a tx whose REST JSON never matches: Run must give up, not spin.
type badChain struct{ *fakeChain }

func (c badChain) BlockTxs(ctx context.Context, h int64) ([]json.RawMessage, error) {
	txs, err := c.fakeChain.BlockTxs(ctx, h)
	for i := range txs {
		txs[i] = json.RawMessage(`{"body":{},"auth_info":{},"signatures":["bm9wZQ=="]}`)
	}
	return txs, err
}

func TestPipelineFailsOnInvalidData(t *testing.T) {
	cfg := fastConfig()
	cfg.StopAtHeight = 10
	p, err := New(cfg, badChain{newFakeChain(10, 0)}, &memWriter{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = p.Run(ctx)
	if !errors.Is(err, ErrInvalidData) {
		t.Fatalf("Run = %v, want ErrInvalidData", err)
	}
}

func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		sum := 0.0
		for _, m := range mf.GetMetric() {
			switch {
			case m.Counter != nil:
				sum += m.Counter.GetValue()
			case m.Gauge != nil:
				sum += m.Gauge.GetValue()
			}
		}
		return sum
	}
	return 0
}

// noValidators fails every validator lookup: blocks must still be written, without proposer.
type noValidators struct {
	*fakeChain
	calls *atomic.Int64
}

func (n noValidators) Validators(ctx context.Context) ([]Validator, error) {
	n.calls.Add(1)
	return nil, errors.New("opchild module not found (injected)")
}

// TestPipelineProposerLookupFailureDoesNotStop: a chain with no validator list (Initia's L1
// has no opchild module) gets its blocks written without proposer, is asked again only once
// per refresh period, and the warning is logged once, not per block.
func TestPipelineProposerLookupFailureDoesNotStop(t *testing.T) {
	w := &memWriter{}
	cfg := fastConfig()
	cfg.StopAtHeight = 30
	cfg.ValidatorRefresh = time.Hour
	var calls atomic.Int64
	rec := &logRecorder{msg: "proposer lookup failed; storing blocks without proposer"}
	p, err := New(cfg, noValidators{newFakeChain(30, 0), &calls}, w, slog.New(rec), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(w.blocks) != 30 {
		t.Fatalf("%d blocks written, want 30", len(w.blocks))
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d validator lookups for 30 blocks within one refresh period, want 1", n)
	}
	if len(rec.records) != 1 {
		t.Errorf("the lookup failure was logged %d times, want once", len(rec.records))
	}
	for _, b := range w.blocks {
		if b.Block.Proposer != nil {
			t.Fatalf("height %d: proposer %+v from a failing lookup", b.Block.Height, b.Block.Proposer)
		}
	}
}

// logRecorder keeps the records of one message.
type logRecorder struct {
	mu      sync.Mutex
	msg     string
	records []slog.Record
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.mu.Lock()
		h.records = append(h.records, r)
		h.mu.Unlock()
	}
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

// TestPipelineProgressAndTipStop: progress lines carry height, target, rates and an ETA while
// catching up; cancelling while waiting at the tip returns nil promptly with everything
// fetched so far written.
func TestPipelineProgressAndTipStop(t *testing.T) {
	src := &slowChain{fakeChain: newFakeChain(400, 0), delay: 2 * time.Millisecond}
	w := &memWriter{}
	cfg := fastConfig()
	cfg.Concurrency = 2
	cfg.ProgressInterval = 20 * time.Millisecond
	rec := &logRecorder{msg: "ingest progress"}
	p, err := New(cfg, src, w, slog.New(rec), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.onWrite = func(last int64) {
		if last == 400 {
			go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		}
	}
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after cancel at the tip: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	checkChain(t, w, 1, 400)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	sawETA := false
	for _, r := range rec.records {
		keys := map[string]bool{}
		r.Attrs(func(a slog.Attr) bool { keys[a.Key] = true; return true })
		for _, k := range []string{"height", "target", "blocks_per_sec", "txs_per_sec"} {
			if !keys[k] {
				t.Errorf("progress line without %s", k)
			}
		}
		sawETA = sawETA || keys["eta"]
	}
	if !sawETA {
		t.Errorf("no progress line with an ETA in %d lines while catching up", len(rec.records))
	}
}

// slowChain makes each block fetch take a little time, so catching up lasts several progress
// intervals.
type slowChain struct {
	*fakeChain
	delay time.Duration
}

func (c *slowChain) Block(ctx context.Context, h int64) (*RawBlock, error) {
	time.Sleep(c.delay)
	return c.fakeChain.Block(ctx, h)
}
