package ingest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestInternalFollowerYields: while the block writer is catching up, the follower traces
// nothing until it is YieldLag heights behind, then keeps that close; once the writer is
// within YieldAbove of the head it traces everything.
func TestInternalFollowerYields(t *testing.T) {
	st := &memInternal{top: 30}
	var behind atomic.Int64
	behind.Store(500)
	f := NewInternalFollower(InternalConfig{
		PollInterval: time.Millisecond, RetryMin: time.Millisecond,
		MaxHeights: 5, YieldAbove: 20, YieldLag: 100,
		CoreBehind: behind.Load,
	}, &flakyTraces{}, st, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	ih := func() int64 { h, _ := st.InternalTxHeight(ctx); return h }
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: internal_tx_height %d", what, ih())
			}
			time.Sleep(time.Millisecond)
		}
	}
	time.Sleep(100 * time.Millisecond) // a hundred polls
	if h := ih(); h != 0 {
		t.Fatalf("traced to %d while the writer catches up 30 heights ahead", h)
	}

	// 250 heights written: the follower comes within YieldLag of them, no closer.
	st.mu.Lock()
	st.top = 250
	st.mu.Unlock()
	waitFor("lag of 100 or less", func() bool { return 250-ih() < 100 })
	time.Sleep(100 * time.Millisecond)
	if h := ih(); 250-h < 100-50 {
		t.Fatalf("internal_tx_height %d: closer than YieldLag (100) minus one long run (50) to 250", h)
	}

	behind.Store(3) // the writer has caught up
	waitFor("everything traced", func() bool { return ih() == 250 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
