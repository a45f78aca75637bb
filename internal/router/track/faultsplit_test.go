package track

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/testutil"
)

// depositNet is L1 and a rollup on fake chains holding count OPinit deposits, each sent in
// its own L1 block and finalized in its own rollup block; it returns the deposits' hashes.
func depositNet(t *testing.T, count int) (l1, l2 *fakeChain, hashes []string) {
	l1, l2 = newFakeChain(t, resetL1, "l1"), newFakeChain(t, resetL2, "l2")
	l1.grow(3)
	l2.grow(10)
	for i := range count {
		seq := fmt.Sprint(100 + i)
		hashes = append(hashes, l1.tx("deposit"+seq, depositInit(seq)))
		l2.tx("finalize"+seq, depositFin(seq))
	}
	l1.grow(2)
	l2.grow(2)
	return l1, l2, hashes
}

// trackAll registers the hashes on a tracker over st and runs it until every one is
// terminal (or the deadline), then returns each status document.
func trackAll(t *testing.T, st *Store, l1, l2 *fakeChain, hashes []string, log *slog.Logger, limit time.Duration, faults func() (stop func())) [][]byte {
	t.Helper()
	ctx := context.Background()
	tr := New(st, fakeRegistry(t, map[string]*fakeChain{resetL1: l1, resetL2: l2}),
		Config{Owner: "router-1", Poll: 10 * time.Millisecond, Log: log})
	for _, h := range hashes {
		if _, err := tr.Track(ctx, resetL1, h); err != nil {
			t.Fatal(err)
		}
	}
	stopFaults := func() {}
	if faults != nil {
		stopFaults = faults() // from the tracker's start until every transfer is terminal
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- tr.Run(rctx) }()
	defer func() {
		cancel()
		// Run's last act, giving up its leases, may meet a terminated session: only a
		// permanent error is the tracker's.
		if err := <-done; classify(err) == faultPermanent {
			t.Errorf("Run: %v", err)
		}
	}()
	deadline := time.Now().Add(limit)
	for {
		terminal := 0
		for _, h := range hashes {
			if tx, err := st.Get(ctx, resetL1, h); err == nil && Terminal(tx.State) {
				terminal++
			}
		}
		if terminal == len(hashes) {
			stopFaults()
			break
		}
		if time.Now().After(deadline) {
			if log != nil {
				log.Error("deadline")
			}
			stopFaults()
			counts, _ := st.Counts(ctx)
			t.Fatalf("%d of %d terminal after %v: %v", terminal, len(hashes), limit, counts)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var docs [][]byte
	for _, h := range hashes {
		tx, err := st.Get(ctx, resetL1, h)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, tx.Doc)
	}
	return docs
}

// TestTrackerUnderRepeatedFaults: every session of the tracker's PostgreSQL is terminated
// every 60 ms for the whole run, while each stored event and each status write costs 3 ms
// (row triggers), so a scan's save of 20 blocks (40 rows, 120 ms) or a round's 40 status
// writes can never commit between two terminations whole. The tracker's writes are halved
// until they commit and grow back: every deposit reaches its terminal state, and every status
// equals a clean run's byte for byte.
func TestTrackerUnderRepeatedFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("terminates PostgreSQL sessions for about 15 s")
	}
	const count = 40
	l1, l2, hashes := depositNet(t, count)
	clean := trackAll(t, openT(t, "sqlite:"+filepath.Join(t.TempDir(), "clean.db")), l1, l2, hashes, nil, 30*time.Second, nil)

	ctx := context.Background()
	dsn := testutil.PostgresDSN(t)
	st := openT(t, dsn)
	for _, q := range []string{
		`CREATE FUNCTION slow_row() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(0.003); RETURN NEW; END $$ LANGUAGE plpgsql`,
		`CREATE TRIGGER slow_event BEFORE INSERT ON track_event FOR EACH ROW EXECUTE FUNCTION slow_row()`,
		// Status writes only: a claim's lease renewal does not set doc.
		`CREATE TRIGGER slow_status BEFORE UPDATE OF doc ON track_transfer FOR EACH ROW EXECUTE FUNCTION slow_row()`,
	} {
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := sql.Open("pgx", strings.Replace(dsn, u.Path, "/postgres", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var rounds, ended atomic.Int64
	terminate := func() func() {
		stop, stopped := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(stopped)
			tick := time.NewTicker(60 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				var n int64
				if err := admin.QueryRowContext(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
					WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`, strings.TrimPrefix(u.Path, "/")).Scan(&n); err == nil {
					rounds.Add(1)
					ended.Add(n)
				}
			}
		}()
		return func() { close(stop); <-stopped }
	}
	var logs testutil.SyncBuffer
	started := time.Now()
	faulty := trackAll(t, st, l1, l2, hashes, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), 120*time.Second, terminate)
	took := time.Since(started)
	split := strings.Count(logs.String(), "retrying in smaller runs")
	t.Logf("%d deposits terminal in %v under %d termination rounds (%d sessions ended); %d scan saves split, %d lost sessions retried",
		count, took.Round(time.Millisecond), rounds.Load(), ended.Load(), split, strings.Count(logs.String(), "database session lost"))
	if ended.Load() == 0 || split == 0 {
		t.Fatalf("the faults were not exercised: %d sessions ended, %d splits", ended.Load(), split)
	}
	for i := range hashes {
		if !bytes.Equal(faulty[i], clean[i]) {
			t.Fatalf("deposit %d differs from the clean run:\n%s\nclean:\n%s", i, faulty[i], clean[i])
		}
	}
}
