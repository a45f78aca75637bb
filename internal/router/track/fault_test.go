package track

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/testutil"
)

func TestClassify(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) *sql.DB {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, name)+"?_pragma=busy_timeout(0)")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	// SQLITE_ERROR: a table the schema lacks (what a schema mismatch looks like).
	_, noTable := open("a.db").Exec("SELECT * FROM track_missing")
	// SQLITE_BUSY: another connection holds the write lock and busy_timeout is 0.
	a, b := open("b.db"), open("b.db")
	if _, err := a.Exec("CREATE TABLE x (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	ta, err := a.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ta.Exec("INSERT INTO x VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	_, busy := b.Exec("INSERT INTO x VALUES (2)")
	_ = ta.Rollback()
	if noTable == nil || busy == nil {
		t.Fatalf("want SQLite errors, got %v and %v", noTable, busy)
	}
	// What a chain's RPC on a port nothing listens on answers: a network error inside the
	// HTTP client's, which must not read as the database's weather.
	rpcCl, err := comet.New("http://127.0.0.1:1", httpx.WithMaxAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	_, rpcRefused := rpcCl.LatestHeight(context.Background())
	if rpcRefused == nil {
		t.Fatal("an RPC on a closed port answered")
	}
	pg := func(code string) error { return fmt.Errorf("track save: %w", &pgconn.PgError{Code: code}) }
	for _, tc := range []struct {
		name string
		err  error
		want fault
	}{
		{"nil", nil, faultNone},
		{"not the database", errors.New("initia-devnet-1 tip: connection refused by upstream"), faultRetry},
		{"chain rpc refused", fmt.Errorf("initia-devnet-1 tip: %w", rpcRefused), faultUpstream},
		{"chain rpc 503", fmt.Errorf("initia-devnet-1 blocks 5…: %w", &httpx.StatusError{Status: 503}), faultUpstream},
		{"joined: rpc and transient", errors.Join(rpcRefused, pg("57P01")), faultTransient},
		{"lost scan lease", errors.New("track save: lost the scan lease of a-1"), faultRetry},
		{"canceled", fmt.Errorf("track since: %w", context.Canceled), faultRetry},
		{"pg admin shutdown (pg_terminate_backend)", pg("57P01"), faultTransient},
		{"pg serialization failure", pg("40001"), faultTransient},
		{"pg deadlock", pg("40P01"), faultTransient},
		{"pg connection failure", pg("08006"), faultTransient},
		{"pg undefined table", pg("42P01"), faultPermanent},
		{"pg disk full", pg("53100"), faultPermanent},
		{"pg unique violation", pg("23505"), faultPermanent},
		{"network", fmt.Errorf("track claim: %w", &net.OpError{Op: "read", Err: errors.New("reset")}), faultTransient},
		{"cut-off answer", fmt.Errorf("track get: %w", io.ErrUnexpectedEOF), faultTransient},
		{"sqlite busy", fmt.Errorf("track save: %w", busy), faultTransient},
		{"sqlite no such table", fmt.Errorf("track since: %w", noTable), faultPermanent},
		{"joined: retry and transient", errors.Join(errors.New("probe"), pg("57P01")), faultTransient},
		{"joined: transient and permanent", errors.Join(pg("57P01"), fmt.Errorf("x: %w", pg("42P01"))), faultPermanent},
		{"double %w", fmt.Errorf("%w: %w", errors.New("a"), pg("40001")), faultTransient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.err); got != tc.want {
				t.Fatalf("classify(%v) = %s, want %s", tc.err, got, tc.want)
			}
			if got := StoreUnavailable(tc.err); got != (tc.want == faultTransient) {
				t.Fatalf("StoreUnavailable(%v) = %v", tc.err, got)
			}
		})
	}
}

// unreachable is the devnet registry with every chain's RPC on a port nothing listens on: the
// scanners fail upstream, which must neither stop Run nor slow the database's handling.
func unreachable(t *testing.T) *registry.Live {
	reg, err := registry.Load("../registry/testdata/devnet")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reg.Chains {
		if len(c.RPC) > 0 {
			c.RPC = []string{"http://127.0.0.1:1"}
		}
	}
	return registry.NewLive(reg)
}

// TestRunStoreFaults: Run survives upstream failures and a PostgreSQL whose backends are
// terminated again and again (the tracker keeps registering and evaluating), and stops with
// an error on a permanent one (a dropped table), on both backends.
func TestRunStoreFaults(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, dsn := open(t)
			var logs testutil.SyncBuffer
			tr := New(st, unreachable(t), Config{Poll: 10 * time.Millisecond, Lease: time.Second,
				Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
			done := make(chan error, 1)
			rctx, cancel := context.WithCancel(ctx)
			defer cancel()
			go func() { done <- tr.Run(rctx) }()
			running := func(what string) {
				t.Helper()
				select {
				case err := <-done:
					t.Fatalf("Run stopped %s: %v\n%s", what, err, logs.String())
				default:
				}
			}
			hash := func(i int) string { return fmt.Sprintf("%064X", i) }
			if _, err := tr.Track(ctx, "initia-devnet-1", hash(1)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			running("on unreachable chains")

			if name == "postgres" {
				u, err := url.Parse(dsn)
				if err != nil {
					t.Fatal(err)
				}
				admin, err := sql.Open("pgx", strings.Replace(dsn, u.Path, "/postgres", 1))
				if err != nil {
					t.Fatal(err)
				}
				defer admin.Close()
				for i := 0; i < 20; i++ {
					if _, err := admin.ExecContext(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
						strings.TrimPrefix(u.Path, "/")); err != nil {
						t.Fatal(err)
					}
					time.Sleep(30 * time.Millisecond)
					running(fmt.Sprintf("after %d terminations", i+1))
				}
				// Still working: registration (the API's path) and evaluation go on.
				before := tr.Stats().Evaluations
				var lastErr error
				for i := 0; ; i++ {
					if _, lastErr = tr.Track(ctx, "initia-devnet-1", hash(2)); lastErr == nil {
						break
					}
					// Between a termination and the pool noticing, a call may see the lost
					// connection: the API answers that as 503, never a 500.
					if !StoreUnavailable(lastErr) || i == 50 {
						t.Fatalf("track after terminations: %v", lastErr)
					}
					time.Sleep(20 * time.Millisecond)
				}
				deadline := time.Now().Add(5 * time.Second)
				for tr.Stats().Evaluations == before {
					if time.Now().After(deadline) {
						t.Fatalf("no evaluation after the terminations\n%s", logs.String())
					}
					time.Sleep(20 * time.Millisecond)
				}
				running("after the terminations")
			}

			// A permanent error: the events table is gone (a schema the binary does not know).
			raw, err := OpenStore(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.db.ExecContext(ctx, "DROP TABLE track_event"); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if !errors.Is(err, errStoreFailed) || classify(err) != faultPermanent {
					t.Fatalf("Run stopped with %v, want a permanent store error", err)
				}
				if !strings.Contains(logs.String(), "level=ERROR") {
					t.Fatalf("the stop was not logged at error level:\n%s", logs.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("Run did not stop on a dropped table\n%s", logs.String())
			}
		})
	}
}

// TestScanLoopQuietOnDeadRPC: a chain whose RPC does not answer is backed off to a minute and
// logged once, naming the chain, as an RPC failure (not "transient database error"); no
// line for every failed scan.
func TestScanLoopQuietOnDeadRPC(t *testing.T) {
	st := openT(t, "sqlite:"+filepath.Join(t.TempDir(), "track.db"))
	var logs testutil.SyncBuffer
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	tr := New(st, unreachable(t), Config{Poll: 200 * time.Millisecond, Now: clock,
		RPCOptions: []httpx.Option{httpx.WithMaxAttempts(1)},
		Log:        slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	rpc, err := tr.client("initia-devnet-1")
	if err != nil {
		t.Fatal(err)
	}
	f := &failures{t: tr, what: "track scan", fatal: func(err error) { t.Fatalf("fatal: %v", err) }, upstream: true}
	var waits []time.Duration
	// An hour of scans, the clock moved by each backoff.
	for elapsed := time.Duration(0); elapsed < time.Hour; {
		_, err := tr.scanPass(context.Background(), "initia-devnet-1", rpc)
		if err == nil {
			t.Fatal("a scan of a dead RPC succeeded")
		}
		wait, stop := f.next(err, "chain", "initia-devnet-1")
		if stop {
			t.Fatal("stopped on an RPC failure")
		}
		waits = append(waits, wait)
		now = now.Add(wait)
		elapsed += wait
	}
	if last := waits[len(waits)-1]; last < 54*time.Second || last > 66*time.Second {
		t.Errorf("backoff after an hour: %v, want about a minute (%v)", last, waits)
	}
	if len(waits) > 90 {
		t.Errorf("%d scans in an hour of a dead RPC", len(waits))
	}
	out := logs.String()
	if strings.Contains(out, "database") {
		t.Errorf("an RPC failure logged as the database's:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(lines[0], `msg="upstream unreachable"`) || !strings.Contains(lines[0], "chain_id=initia-devnet-1") {
		t.Fatalf("first line should name the chain's outage:\n%s", out)
	}
	// Once away, then a summary at most every five minutes: ≤ 13 lines in an hour.
	if len(lines) > 13 {
		t.Errorf("%d lines for an hour of a dead RPC:\n%s", len(lines), out)
	}
	if st := tr.watches["initia-devnet-1"].State(); len(st.Unreachable) != 1 {
		t.Errorf("watch state: %+v", st)
	}
	// /readyz's view: the store answers; the scanned chain is unreachable, the others (not
	// tried here) reachable.
	if err := tr.Ready(context.Background()); err != nil {
		t.Errorf("Ready: %v", err)
	}
	reach := tr.Reachability()
	down := 0
	for _, c := range reach {
		if !c.Reachable {
			down++
			if c.ChainID != "initia-devnet-1" || len(c.Unreachable) != 1 || c.Since == nil || !strings.Contains(c.Error, "connection refused") {
				t.Errorf("unreachable chain: %+v", c)
			}
		}
	}
	if down != 1 || len(reach) < 2 {
		t.Errorf("reachability: %+v", reach)
	}
	_ = st.Close()
	if err := tr.Ready(context.Background()); err == nil {
		t.Error("Ready with the store closed")
	}
}

// TestLostSessionRetriedAtOnce: a lost session (the server ended it: a failover, a restart,
// pg_terminate_backend) is retried at the loop's cadence however often it repeats, while a
// server that cannot be reached (a connect error, as during a failover before the standby is
// promoted) and other transient errors back off. Before, a lost session doubled the wait up
// to 10 s: under sessions ended again and again every attempt met a dead one, the wait stayed
// at 10 s and no pass completed (TestTrackerUnderRepeatedFaults, 0 of 40 in 2 min).
func TestLostSessionRetriedAtOnce(t *testing.T) {
	tr := New(nil, unreachable(t), Config{Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, refused := pgconn.Connect(ctx, "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=5")
	if refused == nil {
		t.Fatal("connected to a closed port")
	}
	lost := fmt.Errorf("track cursor: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"})
	for _, tc := range []struct {
		name string
		err  error
		grow bool
	}{
		{"session ended by the server", lost, false},
		{"cut-off answer", fmt.Errorf("track since: %w", io.ErrUnexpectedEOF), false},
		{"server unreachable", fmt.Errorf("track cursor: %w", refused), true},
		{"serialization failure", fmt.Errorf("track save: %w", &pgconn.PgError{Code: "40001"}), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if classify(tc.err) != faultTransient {
				t.Fatalf("classified %s", classify(tc.err))
			}
			f := &failures{t: tr, what: "track scan", fatal: func(err error) { t.Fatal(err) }, upstream: true}
			var last time.Duration
			for range 12 {
				last, _ = f.next(tc.err, "chain", "initia-devnet-1")
			}
			if grew := last > 5*time.Second; grew != tc.grow {
				t.Fatalf("after 12 failures the wait is %v (grow %v)", last, tc.grow)
			}
			if !tc.grow && last != tr.cfg.Poll {
				t.Fatalf("a lost session waits %v, want the poll interval", last)
			}
			if wait, _ := f.next(nil); wait != 0 || f.n != 0 {
				t.Fatalf("after a success: wait %v, %d failures", wait, f.n)
			}
		})
	}
}
