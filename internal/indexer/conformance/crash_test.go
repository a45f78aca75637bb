package conformance

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// The crash test re-executes this test binary as the ingesting process; these variables tell
// the child what to do.
const (
	childEnv    = "ROLLGATE_INGEST_CHILD" // "1" in the child
	childDSN    = "ROLLGATE_INGEST_CHILD_DSN"
	childSource = "ROLLGATE_INGEST_CHILD_URL"
	childStop   = "ROLLGATE_INGEST_CHILD_STOP"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(runChild())
	}
	os.Exit(m.Run())
}

// runChild ingests the replayed chain into the store until the stop height, exactly as the
// uninterrupted run does, and is SIGKILLed by the parent at some random moment.
func runChild() int {
	stop, err := strconv.ParseInt(os.Getenv(childStop), 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	if err := ingestInto(context.Background(), os.Getenv(childDSN), os.Getenv(childSource), stop); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// crashConfig uses small batches, so a kill lands inside or between many transactions.
func crashConfig(stop int64) ingest.Config {
	return ingest.Config{
		ChainID:        "local-evm-1",
		VMType:         "evm",
		RichList:       true,
		Concurrency:    4,
		MaxBatchBlocks: 25,
		MaxBatchTxs:    400,
		PollInterval:   10 * time.Millisecond,
		RetryMin:       5 * time.Millisecond,
		RetryMax:       50 * time.Millisecond,
		StopAtHeight:   stop,
	}
}

func ingestInto(ctx context.Context, dsn, url string, stop int64) error {
	logger := slog.New(slog.DiscardHandler)
	db, err := store.Open(ctx, dsn, logger)
	if err != nil {
		return err
	}
	defer db.Close()
	src, err := chainSource(url)
	if err != nil {
		return err
	}
	p, err := ingest.New(profile.Ingest(crashConfig(stop), profile.Options{}), src, db, logger, nil)
	if err != nil {
		return err
	}
	return p.Run(ctx)
}

// chainSource is the production wiring: the project's CometBFT, REST and JSON-RPC clients,
// all pointed at the replay server (it answers RPC, REST and JSON-RPC alike; the pipeline asks
// JSON-RPC on EVM chains only).
func chainSource(url string) (*ingest.ClientSource, error) {
	src, err := ingest.DialSource(url, url, nil)
	if err != nil {
		return nil, err
	}
	rpc, err := evmrpc.New(url)
	if err != nil {
		return nil, err
	}
	return src.WithEVM(ingest.NewEVMSource(rpc)), nil
}

func dump(t *testing.T, dsn string) ([]byte, int64) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var buf bytes.Buffer
	if err := db.Dump(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	h, err := db.IndexedHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), h
}

// TestCrashSafety ingests the busy minievm capture (752 blocks, 7,728 txs) once without
// interruption, then again in a child process that is SIGKILLed at random moments at least 20
// times and restarted each time, and requires the two final stores to dump to the same bytes:
// nothing lost, nothing written twice, block_time continuous across restarts.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test re-executes the binary many times")
	}
	dir := testutil.Fixture(t, "minievm-busy")
	var top int64
	// The fetch stage may ask an ERC-721 name() at a later height than the capture holds it
	// (heights are fetched concurrently): see replay.HeightFallback.
	srv, err := replay.New(dir, replay.MaxHeight(func() int64 { return top }), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	top = srv.CapturedMaxHeight()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	tmp := t.TempDir()
	refDSN := "sqlite:" + filepath.Join(tmp, "ref.db")
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := ingestInto(ctx, refDSN, ts.URL, top); err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	refTime := time.Since(start)
	want, wantHeight := dump(t, refDSN)
	if wantHeight != top {
		t.Fatalf("uninterrupted run stopped at %d, want %d", wantHeight, top)
	}
	t.Logf("uninterrupted run: %d blocks in %v", top, refTime.Round(time.Millisecond))
	// The comparison covers the NFT tables only if the reference holds NFT rows: the busy
	// capture's ERC-721 mints, transfers and burns.
	for _, table := range []string{"nft_collection", "nft", "nft_txs"} {
		if n := dumpRows(want, table); n == 0 {
			t.Fatalf("the reference store has no %s row: the crash runs would not test NFT indexing", table)
		} else {
			t.Logf("reference %s rows: %d", table, n)
		}
	}

	// The dump is backend-neutral, so the PostgreSQL run is held to the SQLite reference too.
	t.Run("sqlite", func(t *testing.T) {
		crashRuns(t, "sqlite:"+filepath.Join(tmp, "crash.db"), ts.URL, top, refTime, want)
	})
	t.Run("postgres", func(t *testing.T) {
		crashRuns(t, testutil.PostgresDSN(t), ts.URL, top, refTime, want)
	})
}

// crashRuns ingests into crashDSN through at least 20 SIGKILLed children, then one that runs
// to the end, and compares the store's dump with want.
func crashRuns(t *testing.T, crashDSN, url string, top int64, refTime time.Duration, want []byte) {
	rng := rand.New(rand.NewPCG(crashSeed(t), 7))
	const wantKills = 20
	kills := 0
	var heights []string
	last := int64(0)
	for attempt := 0; kills < wantKills && attempt < 100; attempt++ {
		// Most kills wait until the child has written a random share of the remaining
		// blocks, then a random few milliseconds more, so they land inside or between
		// transactions all along the chain; every fourth one is purely time-based and may
		// land during start-up or fetching.
		var until func(h int64) bool
		if attempt%4 != 3 {
			step := 1 + rng.Int64N(max(1, (top-last)/int64(wantKills-kills+1)))
			target := min(last+step, top-1)
			until = func(h int64) bool { return h >= target }
		}
		extra := time.Duration(rng.IntN(10)) * time.Millisecond
		exited, err := runChildUntil(crashDSN, url, top, until, extra)
		if err != nil {
			t.Fatalf("child %d: %v", attempt, err)
		}
		_, h := dump(t, crashDSN)
		if h < last {
			t.Fatalf("indexed height went back from %d to %d after a kill", last, h)
		}
		last = h
		if exited {
			if h != top {
				t.Fatalf("child exited cleanly at height %d, want %d", h, top)
			}
			break // finished before the kill: nothing left to interrupt
		}
		kills++
		heights = append(heights, strconv.FormatInt(h, 10))
	}
	t.Logf("%d kills; indexed height after each: %s", kills, strings.Join(heights, " "))
	if kills < wantKills {
		t.Errorf("only %d kills landed before the chain was fully ingested, want %d", kills, wantKills)
	}
	if last < top {
		// The last restart runs to the end.
		exited, err := runChildUntil(crashDSN, url, top, func(int64) bool { return false }, time.Minute)
		if err != nil || !exited {
			t.Fatalf("final child: exited=%v err=%v", exited, err)
		}
	}
	got, gotHeight := dump(t, crashDSN)
	if gotHeight != top {
		t.Fatalf("after the crashes the store is at %d, want %d", gotHeight, top)
	}
	// Dictionary ids are surrogate keys: PostgreSQL sequences are not transactional, so a
	// transaction killed after drawing ids leaves a gap, and the restarted run numbers the
	// same accounts differently. Nothing is lost or duplicated by that, and no API answer
	// shows those ids, so both dumps are compared with every dictionary id replaced by the
	// value it stands for. Everything else, tx sequences included, must be identical.
	got, want = testutil.CanonicalDump(t, got), testutil.CanonicalDump(t, want)
	if !bytes.Equal(got, want) {
		t.Fatalf("store after %d kills differs from the uninterrupted run: %s", kills, firstDiff(want, got))
	}
}

// runChildUntil starts the child and SIGKILLs it extra after until(indexed height) holds (or,
// with a nil until, extra after the start), unless it exits first; exited reports a clean exit.
func runChildUntil(dsn, url string, stop int64, until func(int64) bool, extra time.Duration) (exited bool, err error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", childDSN+"="+dsn, childSource+"="+url, childStop+"="+strconv.FormatInt(stop, 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	finished := func(err error) (bool, error) {
		if err != nil {
			return false, fmt.Errorf("%w: %s", err, stderr.String())
		}
		return true, nil
	}

	if until != nil {
		// Watch the indexed height from this process (SQLite WAL readers do not block the
		// writer) until the child got far enough.
		ctx := context.Background()
		db, err := store.Open(ctx, dsn, nil)
		if err != nil {
			_ = cmd.Process.Kill()
			<-done //nolint:errcheck // killed: its exit error says only that
			return false, err
		}
		defer db.Close()
	poll:
		for {
			select {
			case err := <-done:
				return finished(err)
			case <-time.After(2 * time.Millisecond):
				if h, err := db.IndexedHeight(ctx); err == nil && until(h) {
					break poll
				}
			}
		}
	}
	select {
	case err := <-done:
		return finished(err)
	case <-time.After(extra):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done //nolint:errcheck // killed: its exit error says only that
		return false, nil
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  uninterrupted: %.300s\n  crashed:       %.300s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d lines", len(al), len(bl))
}

// crashSeed picks the kill schedule's seed: $ROLLGATE_CRASH_SEED when set, so a failure can be
// replayed, else the clock. The seed is logged, and go test prints the log of a failing test.
func crashSeed(t *testing.T) uint64 {
	t.Helper()
	return testSeed(t, "ROLLGATE_CRASH_SEED", "kill schedule")
}

// testSeed is a fresh seed for what, logged, or the one in the environment variable env, so a
// failing run can be replayed.
func testSeed(t *testing.T, env, what string) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(env); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", env, s, err)
		}
		seed = v
	}
	t.Logf("%s seed %d (replay with %s=%d)", what, seed, env, seed)
	return seed
}

// dumpRows counts the rows of one table in a store dump ("## table (…)" then a line per row).
func dumpRows(dump []byte, table string) int {
	n, in := 0, false
	for _, line := range strings.Split(string(dump), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			in = strings.HasPrefix(line, "## "+table+" (")
		case in && line != "":
			n++
		}
	}
	return n
}
