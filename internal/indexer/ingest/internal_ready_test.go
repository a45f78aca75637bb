package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// flakyTraces fails every trace while down is set.
type flakyTraces struct{ down atomic.Bool }

func (f *flakyTraces) BlockReceipts(context.Context, int64) ([]json.RawMessage, error) {
	return nil, nil
}
func (f *flakyTraces) TraceBlock(context.Context, int64) (json.RawMessage, error) {
	if f.down.Load() {
		return nil, errors.New("debug_traceBlockByNumber: 503")
	}
	return json.RawMessage(`[]`), nil
}

// memInternal is a block writer at height top, every height holding EVM txs.
type memInternal struct {
	mu      sync.Mutex
	top, ih int64
}

func (m *memInternal) IndexedHeight(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.top, nil
}
func (m *memInternal) InternalTxHeight(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ih, nil
}
func (m *memInternal) EVMTxHashes(_ context.Context, from, to int64) ([]store.EVMTxsAt, error) {
	var hs []store.EVMTxsAt
	for h := from; h <= to; h++ {
		hs = append(hs, store.EVMTxsAt{Height: h})
	}
	return hs, nil
}
func (m *memInternal) WriteInternalTxs(_ context.Context, bs []store.InternalBlock) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ih = bs[len(bs)-1].Height
	return nil
}

// TestInternalFollowerBehind: a trace endpoint that keeps failing leaves internal txs behind,
// says so in Ready (INTERNAL_TX_BEHIND) and in one warn line however many retries; once it
// answers the follower catches up, is ready, and says so once.
func TestInternalFollowerBehind(t *testing.T) {
	src := &flakyTraces{}
	src.down.Store(true)
	st := &memInternal{top: 50}
	var logs bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) }), nil))
	f := NewInternalFollower(InternalConfig{PollInterval: time.Millisecond, RetryMin: time.Millisecond, RetryMax: 5 * time.Millisecond}, src, st, log)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	time.Sleep(200 * time.Millisecond) // dozens of failed attempts
	var nr *NotReadyError
	if err := f.Ready(20); !errors.As(err, &nr) || nr.Reason != NotReadyInternalTxs || !strings.Contains(nr.Message, "503") {
		t.Fatalf("Ready with traces failing: %v", err)
	}
	src.down.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for f.Ready(0) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("internal txs never caught up: %v", f.Ready(0))
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	out := logs.String()
	mu.Unlock()
	if n := strings.Count(out, "level=WARN"); n != 1 {
		t.Errorf("%d warn lines, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "internal txs writing again") {
		t.Errorf("no recovery line:\n%s", out)
	}
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// otherChainTraces traces one tx per height: the stored chain's (hash 0x11…) until reset is
// set, then another chain's (0x22…), as a node replaced under the same URL would.
type otherChainTraces struct{ reset atomic.Bool }

func (f *otherChainTraces) BlockReceipts(context.Context, int64) ([]json.RawMessage, error) {
	return nil, nil
}
func (f *otherChainTraces) TraceBlock(context.Context, int64) (json.RawMessage, error) {
	b := "11"
	if f.reset.Load() {
		b = "22"
	}
	return json.RawMessage(`[{"txHash":"0x` + strings.Repeat(b, 32) + `","result":{"type":"CALL","from":"0x0000000000000000000000000000000000000001",` +
		`"to":"0x0000000000000000000000000000000000000002","value":"0x0","gas":"0x5208","gasUsed":"0x5208","input":"0x","output":"0x"}}]`), nil
}

// storedHashes is memInternal whose every height holds one EVM tx, hash 0x11….
type storedHashes struct{ memInternal }

func (m *storedHashes) EVMTxHashes(_ context.Context, from, to int64) ([]store.EVMTxsAt, error) {
	var hs []store.EVMTxsAt
	for h := from; h <= to; h++ {
		hs = append(hs, store.EVMTxsAt{Height: h, Hashes: [][]byte{bytes.Repeat([]byte{0x11}, 32)}})
	}
	return hs, nil
}

// TestInternalTracesOfAnotherChain: after the node is replaced by another chain, the traces
// of the stored heights name txs the store does not hold there; none is written (the follower
// stays behind and says why) until the node serves the stored chain again.
func TestInternalTracesOfAnotherChain(t *testing.T) {
	src := &otherChainTraces{}
	src.reset.Store(true)
	st := &storedHashes{memInternal{top: 30}}
	f := NewInternalFollower(InternalConfig{PollInterval: time.Millisecond, RetryMin: time.Millisecond, RetryMax: 5 * time.Millisecond}, src, st, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	time.Sleep(100 * time.Millisecond)
	var nr *NotReadyError
	if err := f.Ready(0); !errors.As(err, &nr) || !strings.Contains(nr.Message, "does not hold") {
		t.Fatalf("Ready with another chain's traces: %v", err)
	}
	if ih, _ := st.InternalTxHeight(ctx); ih != 0 {
		t.Fatalf("internal txs written to height %d from another chain's traces", ih)
	}
	src.reset.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for f.Ready(0) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("internal txs never caught up on the stored chain: %v", f.Ready(0))
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
