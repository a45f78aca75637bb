// Package bench measures rollgate where docs/performance.md sets targets: the ingestion pipeline writing
// into a store (Ingest), the indexer API serving from a large store (API) and the router's
// /route (Route). It runs the production code paths — ingest.New(...).Run, api.New served over
// loopback HTTP, the router handler — and only prints what it measured; nothing here asserts a
// timing. `rollgate bench` is a thin CLI over it.
package bench

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/store"
)

// backend names the store kind of a DSN for the reports.
func backend(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return "postgres"
	}
	return "sqlite"
}

func sqlitePath(dsn string) (string, bool) {
	if p, ok := strings.CutPrefix(dsn, "sqlite://"); ok {
		return p, true
	}
	return strings.CutPrefix(dsn, "sqlite:")
}

// openStore opens (and migrates) the store, creating a SQLite file's directory first.
func openStore(ctx context.Context, dsn string, log *slog.Logger) (*store.DB, error) {
	if dsn == "" {
		return nil, fmt.Errorf("a store DSN is required")
	}
	if p, ok := sqlitePath(dsn); ok && p != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
	}
	db, err := store.Open(ctx, dsn, log)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return db, nil
}

// openIndexed opens the store as openStore does, with the height it has indexed up to, from
// which a run goes on.
func openIndexed(ctx context.Context, dsn string, log *slog.Logger) (*store.DB, int64, error) {
	db, err := openStore(ctx, dsn, log)
	if err != nil {
		return nil, 0, err
	}
	indexed, err := db.IndexedHeight(ctx)
	if err != nil {
		db.Close()
		return nil, 0, err
	}
	return db, indexed, nil
}

// countTxs is the number of txs the store holds (the newest sequence; sequences are dense).
func countTxs(ctx context.Context, r store.Reader) (int64, error) {
	page, err := r.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1, Desc: true, CountTotal: true})
	if err != nil {
		return 0, fmt.Errorf("count txs: %w", err)
	}
	return page.Total, nil
}

// storeSize is the on-disk size of the store: the SQLite file with its WAL, or PostgreSQL's
// pg_database_size. -1 when it cannot be told.
func storeSize(ctx context.Context, dsn string) int64 {
	if p, ok := sqlitePath(dsn); ok {
		var n int64 = -1
		for _, f := range []string{p, p + "-wal"} {
			if st, err := os.Stat(f); err == nil {
				n = max(n, 0) + st.Size()
			}
		}
		return n
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return -1
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&n); err != nil {
		return -1
	}
	return n
}

// analyze refreshes PostgreSQL's planner statistics of the whole database.
func analyze(ctx context.Context, dsn string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// floor1 prints x with one decimal, truncated: a printed figure is never better than measured.
func floor1(x float64) string { return fmt.Sprintf("%.1f", math.Floor(x*10)/10) }

func bytesString(n int64) string {
	if n < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%s MiB (%d bytes)", floor1(float64(n)/(1<<20)), n)
}

// ms prints a duration in milliseconds with three decimals, truncated.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.3f", float64(d.Truncate(time.Microsecond))/float64(time.Millisecond))
}

// StartCPUProfile writes a CPU profile of the process to path until the returned function is
// called (`--cpuprofile`), so a figure comes with where its time went.
func StartCPUProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
