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
func (m *memInternal) EVMTxHeights(_ context.Context, from, to int64) ([]int64, error) {
	var hs []int64
	for h := from; h <= to; h++ {
		hs = append(hs, h)
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
