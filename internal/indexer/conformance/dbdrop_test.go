package conformance

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
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

// TestDroppedDatabaseConnections: an operator (or a failover) ends the indexer's PostgreSQL
// sessions while it writes, over and over — `SELECT pg_terminate_backend(pid) FROM
// pg_stat_activity WHERE datname = …`, which ends the API's sessions too. The pipeline must
// ride it out (retry the batch on a fresh connection, never give up), the API must answer
// throughout, and the final store must dump to the same bytes as a run nothing interrupted.
//
// The replayed busy capture grows at a fixed pace, so ingestion writes small batches all along
// and the terminations land inside write transactions (a backend holding a transaction id).
func TestDroppedDatabaseConnections(t *testing.T) {
	const (
		stop      = 400 // blocks of the busy capture (about 4,000 txs): bounded for CI
		wantKills = 20  // terminations that caught a write transaction
		pace      = 6 * time.Millisecond
	)
	dir := testutil.Fixture(t, "minievm-busy")
	started := time.Now()
	// Before ingestion starts the chain reports height 1; from then on one block per pace.
	var origin atomic.Int64
	top := func() int64 {
		o := origin.Load()
		if o == 0 {
			return 1
		}
		return min(stop, 1+int64(time.Since(time.Unix(0, o))/pace))
	}
	srv, err := replay.New(dir, replay.MaxHeight(top))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	// The reference: the same blocks, nothing interrupted.
	refSrv, err := replay.New(dir, replay.MaxHeight(func() int64 { return stop }))
	if err != nil {
		t.Fatal(err)
	}
	refTS := httptest.NewServer(refSrv)
	defer refTS.Close()
	refDSN := "sqlite:" + filepath.Join(t.TempDir(), "ref.db")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := ingestWith(ctx, refDSN, refTS.URL, dropConfig(stop), nil, nil); err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	want, _ := dump(t, refDSN)

	dsn := testutil.PostgresDSN(t)
	var logs testutil.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	db, err := store.Open(ctx, dsn, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var apiLogs testutil.SyncBuffer
	apiLog := slog.New(slog.NewTextHandler(&apiLogs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	apiSrv := httptest.NewServer(api.New(api.Config{ChainID: "local-evm-1", Features: evmFeatures(db), AccountPrefix: "init"}, db, apiLog, nil))
	defer apiSrv.Close()

	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	var dbName string
	if err := admin.QueryRow(ctx, "SELECT current_database()").Scan(&dbName); err != nil {
		t.Fatal(err)
	}

	var ingestErr error
	ingestDone := make(chan struct{})
	origin.Store(time.Now().UnixNano())
	go func() {
		defer close(ingestDone)
		ingestErr = ingestWith(ctx, dsn, ts.URL, dropConfig(stop), db, logger)
	}()

	// The API, asked continuously while the sessions drop.
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

	kills, sessions, err := terminateDuringWrites(ctx, admin, dbName, wantKills, ingestDone)
	<-ingestDone // the pipeline stops at the stop height, or with ctx
	stopReads()
	readers.Wait()
	if err != nil {
		t.Fatalf("terminating sessions: %v", err)
	}
	t.Logf("%d terminations caught a write transaction (%d sessions ended in all); ingestion took %v; API: %s",
		kills, sessions, time.Since(started).Round(time.Millisecond), reads)
	if ingestErr != nil {
		t.Fatalf("ingestion did not survive the dropped connections: %v\nlogs:\n%s", ingestErr, logs.String())
	}
	if kills < wantKills {
		t.Fatalf("only %d terminations caught a write, want %d", kills, wantKills)
	}
	if !strings.Contains(logs.String(), "transient=true") {
		t.Errorf("no write was retried as transient; logs:\n%s", logs.String())
	}
	if reads.failed() > 0 {
		t.Errorf("the API failed %d of %d requests while the sessions dropped: %s\nAPI logs:\n%s", reads.failed(), reads.total(), reads, apiLogs.String())
	}
	got, h := dump(t, dsn)
	if h != stop {
		t.Fatalf("store at %d, want %d", h, stop)
	}
	// Dictionary ids follow the batch boundaries of the run: a batch numbers its Cosmos
	// accounts before the accounts first seen in its EVM txs, and a paced PostgreSQL run cuts
	// batches elsewhere than an unpaced SQLite one. No answer shows the ids, so they are
	// compared through testutil.CanonicalDump, as the crash test does; everything else must be identical.
	if got, want = testutil.CanonicalDump(t, got), testutil.CanonicalDump(t, want); !bytes.Equal(got, want) {
		t.Fatalf("store differs from the uninterrupted run: %s", firstDiff(want, got))
	}
}

// dropConfig writes small batches (at most 10 blocks), so a write is in flight most of the time.
func dropConfig(stop int64) ingest.Config {
	c := crashConfig(stop)
	c.MaxBatchBlocks = 10
	c.RetryMin = 10 * time.Millisecond
	c.RetryMax = 200 * time.Millisecond
	return c
}

// ingestWith runs a pipeline into dsn, or into db when it is given (then the caller owns it).
func ingestWith(ctx context.Context, dsn, url string, cfg ingest.Config, db *store.DB, logger *slog.Logger) error {
	if db == nil {
		var err error
		if db, err = store.Open(ctx, dsn, nil); err != nil {
			return err
		}
		defer db.Close()
	}
	src, err := chainSource(url)
	if err != nil {
		return err
	}
	p, err := ingest.New(profile.Ingest(cfg, profile.Options{}), src, db, logger, nil)
	if err != nil {
		return err
	}
	return p.Run(ctx)
}

// terminateDuringWrites waits until one of the database's sessions holds a transaction id
// (a write transaction: the pipeline's FOR UPDATE, COPY or UPDATE), then ends every session
// of the database, until it has done so want times or ingestion ended. It returns how many
// terminations caught a write and how many sessions they ended.
func terminateDuringWrites(ctx context.Context, admin *pgx.Conn, dbName string, want int, ingestDone <-chan struct{}) (kills, sessions int, err error) {
	const writing = `SELECT COUNT(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL`
	const terminate = `SELECT COUNT(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`
	for kills < want {
		select {
		case <-ingestDone:
			return kills, sessions, nil
		default:
		}
		var n int
		if err := admin.QueryRow(ctx, writing, dbName).Scan(&n); err != nil {
			return kills, sessions, err
		}
		if n == 0 {
			time.Sleep(500 * time.Microsecond)
			continue
		}
		var ended int
		if err := admin.QueryRow(ctx, terminate, dbName).Scan(&ended); err != nil {
			return kills, sessions, err
		}
		kills++
		sessions += ended
		// Let the pipeline reconnect and make some progress before the next one.
		time.Sleep(30 * time.Millisecond)
	}
	return kills, sessions, nil
}

// readStats counts the API's answers by status.
type readStats struct {
	mu       sync.Mutex
	byStatus map[string]int
}

func newReadStats() *readStats { return &readStats{byStatus: map[string]int{}} }

func (r *readStats) get(ctx context.Context, url string) {
	key := ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		key = "error: " + err.Error()
	} else if resp, err := http.DefaultClient.Do(req); err != nil {
		if ctx.Err() != nil {
			return
		}
		key = "error: " + err.Error()
	} else {
		resp.Body.Close()
		key = fmt.Sprint(resp.StatusCode)
	}
	r.mu.Lock()
	r.byStatus[key]++
	r.mu.Unlock()
}

func (r *readStats) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.byStatus {
		n += c
	}
	return n
}

func (r *readStats) failed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for k, c := range r.byStatus {
		if k != "200" {
			n += c
		}
	}
	return n
}

func (r *readStats) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	for k, c := range r.byStatus {
		parts = append(parts, fmt.Sprintf("%s × %d", k, c))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// TestSessionsEndedInATightLoop: every PostgreSQL session of a writing indexer is ended in a
// tight loop (pg_terminate_backend, as a flapping proxy or a failover loop does) for the whole
// catch-up of the busy capture, three fresh ingests in a row. Each must reach the top with
// every tx, through writes that halve until they commit between two terminations, and store
// what an uninterrupted run stores; the API, whose sessions are ended too, answers
// throughout.
func TestSessionsEndedInATightLoop(t *testing.T) {
	const (
		runs = 3
		// pause between two rounds of terminations: about six rounds a second, each ending every
		// session of the database. A write of a few blocks fits between two rounds (a clean
		// run writes the capture in about 5 s); a full batch of 200 does not.
		pause = 150 * time.Millisecond
		// perRun bounds one ingest: 15 s to 1 min on two busy cores; without the halving a run
		// never gets past its first full batch.
		perRun = 4 * time.Minute
	)
	dir := testutil.Fixture(t, testutil.Busy)
	srv, err := replay.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	top := srv.CapturedMaxHeight()
	cfg := crashConfig(top)
	cfg.MaxBatchBlocks, cfg.MaxBatchTxs = 0, 0 // the defaults: 200 blocks, 5,000 txs a write
	cfg.RetryMax = 200 * time.Millisecond

	refCtx, cancel := context.WithTimeout(context.Background(), perRun)
	defer cancel()
	refDSN := "sqlite:" + filepath.Join(t.TempDir(), "ref.db")
	if err := ingestWith(refCtx, refDSN, ts.URL, cfg, nil, nil); err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	wantDump, _ := dump(t, refDSN)
	want := testutil.CanonicalDump(t, wantDump)

	for run := 1; run <= runs; run++ {
		t.Run(fmt.Sprint("ingest ", run), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), perRun)
			defer cancel()
			started := time.Now()
			dsn := testutil.PostgresDSN(t)
			var logs testutil.SyncBuffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
			db, err := store.Open(ctx, dsn, logger)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			apiSrv := httptest.NewServer(api.New(api.Config{ChainID: "local-evm-1", Features: evmFeatures(db), AccountPrefix: "init"}, db, nil, nil))
			defer apiSrv.Close()
			admin, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close(context.Background())

			var ingestErr error
			ingestDone := make(chan struct{})
			go func() {
				defer close(ingestDone)
				ingestErr = ingestWith(ctx, dsn, ts.URL, cfg, db, logger)
			}()
			reads := newReadStats()
			readCtx, stopReads := context.WithCancel(ctx)
			var readers sync.WaitGroup
			for _, path := range []string{"/indexer/tx/v1/txs?pagination.limit=5", "/indexer/block/v1/blocks?pagination.limit=2", "/status"} {
				readers.Go(func() {
					for readCtx.Err() == nil {
						reads.get(readCtx, apiSrv.URL+path)
						time.Sleep(5 * time.Millisecond)
					}
				})
			}
			const terminate = `SELECT COUNT(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`
			rounds, ended := 0, 0
			for done := false; !done; {
				select {
				case <-ingestDone:
					done = true
					continue
				default:
				}
				var n int
				if err := admin.QueryRow(ctx, terminate).Scan(&n); err != nil {
					t.Fatalf("terminating sessions: %v", err)
				}
				rounds++
				ended += n
				time.Sleep(pause)
			}
			stopReads()
			readers.Wait()
			l := logs.String()
			t.Logf("%d rounds ended %d sessions; %d writes failed, %d of them split; ingestion took %v; API: %s", rounds, ended,
				strings.Count(l, "writing blocks failed"), strings.Count(l, "smaller runs"), time.Since(started).Round(time.Millisecond), reads)
			if ingestErr != nil || ctx.Err() != nil {
				_, h := dump(t, dsn)
				t.Fatalf("ingestion did not reach the top (stopped at %d of %d): %v\nlast logs:\n%s", h, top, ingestErr, l[max(0, len(l)-3000):])
			}
			if !strings.Contains(logs.String(), "retrying in smaller runs") {
				t.Errorf("no write was split: the terminations did not bite\nlogs:\n%s", logs.String())
			}
			if reads.failed() > 0 {
				t.Errorf("the API failed %d of %d requests while the sessions were ended: %s", reads.failed(), reads.total(), reads)
			}
			gotDump, h := dump(t, dsn)
			if h != top {
				t.Fatalf("store at %d, want the top %d", h, top)
			}
			if got := testutil.CanonicalDump(t, gotDump); !bytes.Equal(got, want) {
				t.Fatalf("store differs from the uninterrupted run: %s", firstDiff(want, got))
			}
		})
	}
}
