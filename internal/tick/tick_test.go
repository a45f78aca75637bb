package tick

import (
	"context"
	"testing"
	"time"
)

// TestEveryStopsWithContext: fn runs once a tick, and Every returns once ctx ends.
func TestEveryStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	n := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		Every(ctx, time.Millisecond, func(time.Time) {
			if n++; n == 3 {
				cancel()
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Every did not return after its context ended")
	}
	if n < 3 {
		t.Fatalf("fn ran %d times before the context ended, want 3", n)
	}
}
