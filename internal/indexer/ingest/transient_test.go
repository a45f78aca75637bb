package ingest

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rollgate/rollgate/internal/store"
)

// failingWriter fails its first `fail` writes with err, then writes through.
type failingWriter struct {
	memWriter
	mu     sync.Mutex
	err    error
	fail   int
	failed int
}

func (w *failingWriter) WriteBlocks(ctx context.Context, bundles []store.BlockBundle) error {
	w.mu.Lock()
	if w.failed < w.fail {
		w.failed++
		w.mu.Unlock()
		return w.err
	}
	w.mu.Unlock()
	return w.memWriter.WriteBlocks(ctx, bundles)
}

// TestPipelineWriteErrors: a transient database error is retried for as long as it lasts (far
// beyond MaxWriteAttempts); a permanent one stops ingestion after MaxWriteAttempts, logged at
// error, with Run's error naming the heights and the cause.
func TestPipelineWriteErrors(t *testing.T) {
	const stop = 40
	tests := []struct {
		name     string
		err      error
		fail     int
		wantErr  bool
		attempts int // writes that failed
	}{
		{"session terminated", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, 12, false, 12},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, 8, false, 8},
		{"disk full", &pgconn.PgError{Code: "53100", Message: "could not extend file"}, 1000, true, 5},
		{"schema mismatch", &pgconn.PgError{Code: "42703", Message: `column "x" does not exist`}, 1000, true, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &failingWriter{err: tc.err, fail: tc.fail}
			cfg := fastConfig()
			cfg.StopAtHeight = stop
			var logs bytes.Buffer
			p, err := New(cfg, newFakeChain(stop, 0), w, slog.New(slog.NewTextHandler(&logs, nil)), nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err = p.Run(ctx)
			if ctx.Err() != nil {
				t.Fatal("Run did not return")
			}
			if w.failed != tc.attempts {
				t.Errorf("%d failed writes, want %d", w.failed, tc.attempts)
			}
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				checkChain(t, &w.memWriter, 1, stop)
				return
			}
			if err == nil || !errors.Is(err, tc.err) || !strings.Contains(err.Error(), "write heights 1..") {
				t.Fatalf("Run = %v, want the write error", err)
			}
			if !strings.Contains(logs.String(), "level=ERROR msg=\"ingestion failed\"") {
				t.Errorf("the permanent failure is not logged at error:\n%s", logs.String())
			}
		})
	}
}
