package conformance

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestDatabaseDropsAtEveryMoment: the indexer's PostgreSQL sessions are ended at every moment
// of its life. Opening the writer's store: at each step (connecting, the migration
// transaction's start and lock, each migration, the commit) once in the middle of a slowed
// statement and once between statements; opening an API replica's store the same at
// connecting and at the schema check; the first read; then, while the busy capture is
// ingested, sessions ended in the middle of a write held on a lock and between writes, the
// API replica's too. The indexer never gives up (no open, no Run returns an error), the API
// answers every request with a 200 throughout, and the store dumps to what an uninterrupted
// run writes.
func TestDatabaseDropsAtEveryMoment(t *testing.T) {
	const (
		stop         = 100
		midIngest    = 4 // writes ended while held on a lock
		betweenKills = 6
	)
	dir := testutil.Fixture(t, "minievm-busy")
	// The chain's top: the whole range for the reference run; for the run under drops it is
	// held below stop and raised a block per round until every kill is done, so ingestion
	// cannot finish before them however fast it is (a fast ingest used to end the rounds at
	// "3 held writes, want 4").
	var top atomic.Int64
	top.Store(stop)
	srv, err := replay.New(dir, replay.MaxHeight(top.Load))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // ~45 s alone; more beside the package's other tests
	defer cancel()

	refDSN := "sqlite:" + filepath.Join(t.TempDir(), "ref.db")
	if err := ingestWith(ctx, refDSN, ts.URL, dropConfig(stop), nil, nil); err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	want, _ := dump(t, refDSN)
	began := time.Now()
	t.Logf("reference run done")

	base := testutil.PostgresDSN(t)
	writerDSN := testutil.WithApplicationName(t, base, "rollgate-writer")
	apiDSN := testutil.WithApplicationName(t, base, "rollgate-api")
	writer := testutil.NewPGTerminator(t, base, "rollgate-writer")
	// Every step is ended mid-statement; between statements only some, since each end makes
	// the open start over and redo the migrations before it.
	writer.BetweenAt = map[string]bool{"connect": true, "migrate: locked": true, "migration 0002_nft.sql": true, "migrate: commit": true}
	replica := testutil.NewPGTerminator(t, base, "rollgate-api")
	var logs testutil.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))

	// Start-up: every step of the writer's open, then of an API replica's.
	restore := store.SetOpenStepHook(writer.Step)
	db, err := store.Open(ctx, writerDSN, logger)
	restore()
	if err != nil {
		t.Fatalf("writer open: %v\n%s", err, logs.String())
	}
	defer db.Close()
	restore = store.SetOpenStepHook(replica.Step)
	rdb, err := store.OpenReader(ctx, apiDSN, logger)
	restore()
	if err != nil {
		t.Fatalf("replica open: %v\n%s", err, logs.String())
	}
	defer rdb.Close()
	// Each step is reached again after its mid-statement end; one ended between statements
	// fails its next statement, or a read retried on a fresh connection gets past it at once.
	steps := append(stepsBelow(t, writer, 2), stepsBelow(t, replica, 2)...)
	if c := writer.Steps()["migration 0002_nft.sql"]; c < 3 {
		t.Errorf("migration 0002_nft.sql reached %d times, want 3 (mid-statement, between, through)", c)
	}
	if len(steps) > 0 {
		t.Errorf("steps not reached twice: %v", steps)
	}
	t.Logf("start-up done after %v", time.Since(began).Round(time.Millisecond))
	for _, s := range []string{"connect", "migrate: begin", "migrate: locked", "migration 0002_nft.sql", "migration 0007_nft_owner_collection.sql", "migrate: commit"} {
		if writer.Steps()[s] == 0 {
			t.Errorf("writer open: step %q never reached", s)
		}
	}
	if replica.Steps()["schema check"] == 0 {
		t.Error("replica open: the schema check never reached")
	}
	startKills, startMid := writer.Kills.Load()+replica.Kills.Load(), writer.MidStatement.Load()+replica.MidStatement.Load()

	apiSrv := httptest.NewServer(api.New(api.Config{ChainID: "local-evm-1", Features: evmFeatures(rdb), AccountPrefix: "init", RichList: true}, rdb, logger, nil))
	defer apiSrv.Close()
	reads := newReadStats()
	readCtx, stopReads := context.WithCancel(ctx)
	var readers sync.WaitGroup
	for _, path := range []string{"/indexer/tx/v1/txs?pagination.limit=5", "/indexer/block/v1/blocks?pagination.limit=2", "/status"} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for readCtx.Err() == nil {
				reads.get(readCtx, apiSrv.URL+path)
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}

	// The first read: the writer's pooled sessions are gone when the pipeline starts.
	if _, err := writer.Now(ctx); err != nil {
		t.Fatal(err)
	}
	src, err := chainSource(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := dropConfig(stop)
	cfg.MaxBatchBlocks = 5
	p, err := ingest.New(profile.Ingest(cfg, profile.Options{}), src, db, logger, nil)
	if err != nil {
		t.Fatal(err)
	}
	top.Store(stop * 3 / 5)
	ingestDone := make(chan error, 1)
	go func() { ingestDone <- p.Run(ctx) }()

	// Ingesting: writes held on a lock of indexed_height (plain reads still pass) and ended
	// mid-statement, and sessions ended between writes, the replica's too.
	locker, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(context.Background())
	midDone, betweenDone := 0, 0
	for (midDone < midIngest || betweenDone < betweenKills) && !isDone(ingestDone) {
		if midDone < midIngest {
			ok, err := killHeldWrite(ctx, locker, writer)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				midDone++
			}
		}
		time.Sleep(40 * time.Millisecond)
		if betweenDone < betweenKills {
			n, err := writer.Now(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := replica.Now(ctx); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				betweenDone++
			}
		}
		time.Sleep(40 * time.Millisecond)
		if top.Load() < stop {
			top.Add(1)
		}
	}
	top.Store(stop)
	ingestErr := <-ingestDone
	t.Logf("ingestion done after %v", time.Since(began).Round(time.Millisecond))
	stopReads()
	readers.Wait()
	kills, mid := writer.Kills.Load()+replica.Kills.Load(), writer.MidStatement.Load()+replica.MidStatement.Load()
	t.Logf("%d sessions ended (%d mid-statement): %d (%d) at start-up, %d held writes ended, %d between writes; API: %s",
		kills, mid, startKills, startMid, midDone, betweenDone, reads)
	if ingestErr != nil {
		t.Fatalf("ingestion gave up: %v\nlogs:\n%s", ingestErr, logs.String())
	}
	if kills < 20 || mid < 6 || midDone < midIngest {
		t.Errorf("%d terminations (%d mid-statement, %d held writes): want >= 20, >= 6 and %d", kills, mid, midDone, midIngest)
	}
	if reads.failed() > 0 || reads.total() == 0 {
		t.Errorf("the API failed %d of %d requests: %s\nlogs:\n%s", reads.failed(), reads.total(), reads, logs.String())
	}
	got, h := dump(t, writerDSN)
	if h != stop {
		t.Fatalf("store at %d, want %d", h, stop)
	}
	if got, want = testutil.CanonicalDump(t, got), testutil.CanonicalDump(t, want); !bytes.Equal(got, want) {
		t.Fatalf("store differs from the uninterrupted run: %s", firstDiff(want, got))
	}
}

// killHeldWrite holds indexed_height in EXCLUSIVE mode (the writer's FOR UPDATE waits, plain
// reads do not), ends the writer's session once it waits there, and lets go. ok is false when
// no write came within 2 s (ingestion over).
func killHeldWrite(ctx context.Context, locker *pgx.Conn, k *testutil.PGTerminator) (ok bool, err error) {
	tx, err := locker.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, "LOCK TABLE indexed_height IN EXCLUSIVE MODE"); err != nil {
		return false, err
	}
	before := k.MidStatement.Load()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		// pg_stat_activity is read once per transaction and kept: clear that snapshot, or this
		// lock-holding transaction never sees the writer start waiting.
		if _, err := tx.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
			return false, err
		}
		var waiting bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
  AND application_name = 'rollgate-writer' AND state = 'active' AND wait_event_type = 'Lock')`).Scan(&waiting); err != nil {
			return false, err
		}
		if !waiting {
			continue
		}
		if _, err := k.Now(ctx); err != nil {
			return false, err
		}
		return k.MidStatement.Load() > before, nil
	}
	return false, nil
}

func isDone(c chan error) bool { return len(c) > 0 }

// stepsBelow lists the steps k saw fewer than n times.
func stepsBelow(t *testing.T, k *testutil.PGTerminator, n int) []string {
	t.Helper()
	var out []string
	for s, c := range k.Steps() {
		if c < n {
			out = append(out, s+": "+strings.Repeat("x", c))
		}
	}
	return out
}
