package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// cuttable is a replica's store whose notification connection the test can keep from
// reconnecting, to see the watcher live on polls meanwhile.
type cuttable struct {
	*store.DB
	cut atomic.Bool
}

func (c *cuttable) ListenIndexed(ctx context.Context, onHeight func(int64)) error {
	if c.cut.Load() {
		return errors.New("cut by the test")
	}
	return c.DB.ListenIndexed(ctx, onHeight)
}

// TestHeightWatcherNotify: on PostgreSQL a replica's watcher learns of a commit by another
// process's writer from its NOTIFY, far sooner than its poll interval; when the listening
// connection is killed (and kept from coming back) it still learns by polling, and once the
// connection is back, by notification again.
func TestHeightWatcherNotify(t *testing.T) {
	ctx := context.Background()
	dsn := testutil.PostgresDSN(t)
	w, err := store.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	fill := func() {
		t.Helper()
		if err := storetest.Fill(ctx, w, 2, storetest.Options{TxsPerBlock: 2}); err != nil {
			t.Fatal(err)
		}
	}
	fill()
	r, err := store.OpenReader(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cr := &cuttable{DB: r}
	const poll = 2 * time.Second
	hw := store.NewHeightWatcher(cr, poll)
	// A waiter keeps the watcher running throughout.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _, _ = hw.Wait(wctx, 1<<62) }()
	until := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("never %s", what)
			}
		}
	}
	// latency commits a block and times how long the watcher takes to report it.
	latency := func() time.Duration {
		t.Helper()
		h, err := w.IndexedHeight(ctx)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		fill()
		tctx, stop := context.WithTimeout(ctx, 3*poll)
		defer stop()
		if _, err := hw.Wait(tctx, h); err != nil {
			t.Fatalf("height %d never seen: %v", h+1, err)
		}
		return time.Since(start)
	}
	until("listening", hw.Listening)
	var worst time.Duration
	for range 5 {
		worst = max(worst, latency())
	}
	t.Logf("notified: worst of 5 commits seen after %v (poll interval %v)", worst, poll)
	if worst > poll/4 {
		t.Errorf("notified commits seen after up to %v: not through the notification (poll %v)", worst, poll)
	}

	// Kill the listening connection from the server side and keep it from reconnecting.
	cr.cut.Store(true)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var killed int
	if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'rollgate-listen' AND datname = current_database()`).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("killed %d listening connections: %v", killed, err)
	}
	until("stopped listening", func() bool { return !hw.Listening() })
	d := latency()
	t.Logf("polling: commit seen after %v", d)

	cr.cut.Store(false)
	until("listening again", hw.Listening)
	worst = 0
	for range 3 {
		worst = max(worst, latency())
	}
	t.Logf("recovered: worst of 3 commits seen after %v", worst)
	if worst > poll/4 {
		t.Errorf("after recovery commits seen after up to %v", worst)
	}
}

// TestListenIndexedSQLite: SQLite has no notifications; the watcher polls.
func TestListenIndexedSQLite(t *testing.T) {
	db, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "n.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.ListenIndexed(context.Background(), func(int64) {}); !errors.Is(err, store.ErrNoListen) {
		t.Fatalf("ListenIndexed on SQLite: %v", err)
	}
}
