package api

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestReplicaStreamNotified: an API replica (api.New over store.OpenReader on PostgreSQL)
// fed by a writer of its own streams each block far sooner than its height poll interval,
// through the NOTIFY of the writer's commit.
func TestReplicaStreamNotified(t *testing.T) {
	ctx := context.Background()
	dsn := testutil.PostgresDSN(t)
	w, err := store.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	fill(t, w, 2)
	r, err := store.OpenReader(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	const poll = 3 * time.Second
	srv := httptest.NewServer(New(Config{StreamPoll: poll}, r, nil, nil))
	t.Cleanup(srv.Close)
	c := openStream(t, srv.URL+"/indexer/block/v1/blocks/stream", "")
	// The stream's watcher listens: its connection has run LISTEN and the read after it.
	pc, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close(ctx) })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var n int
		if err := pc.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'rollgate-listen'
			AND datname = current_database() AND state = 'idle' AND query LIKE 'SELECT height%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica never listened")
		}
	}
	var worst time.Duration
	for i := range 5 {
		start := time.Now()
		fill(t, w, 1)
		ev := c.next(t, 1)[0]
		d := time.Since(start)
		worst = max(worst, d)
		if ev.ID != strconv.Itoa(3+i) {
			t.Fatalf("block event %q, want %d", ev.ID, 3+i)
		}
	}
	t.Logf("worst of 5 blocks streamed %v after the write began (poll interval %v)", worst, poll)
	if worst > poll/4 {
		t.Errorf("blocks streamed up to %v after their commit: not through the notification", worst)
	}
}
