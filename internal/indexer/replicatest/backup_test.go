package replicatest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the store's SQLite driver, for VACUUM INTO

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// consistencySQL reads what a consistent store copy must agree on: the indexed height is the
// highest block, every block up to it is there, and the blocks' tx counts add up to the txs.
const consistencySQL = `SELECT (SELECT height FROM indexed_height),
  (SELECT count(*) FROM block), (SELECT coalesce(max(height), 0) FROM block),
  (SELECT CAST(coalesce(sum(tx_count), 0) AS BIGINT) FROM block), (SELECT count(*) FROM tx)`

type scanner interface{ Scan(dest ...any) error }

func checkConsistent(t *testing.T, what string, row scanner) int64 {
	t.Helper()
	var h, blocks, maxH, sumTx, txs int64
	if err := row.Scan(&h, &blocks, &maxH, &sumTx, &txs); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if h == 0 || blocks != h || maxH != h || sumTx != txs {
		t.Errorf("%s is not consistent: indexed height %d, %d blocks up to %d, %d txs counted by blocks, %d tx rows", what, h, blocks, maxH, sumTx, txs)
	}
	return h
}

// ingestWhile runs a writer on dsn over the busy capture up to final blocks (a block every
// interval after the first 40, slow enough that a backup overlaps several writes) and calls
// backup three times while it writes; once the writer is idle at final, it calls backup again
// and returns that copy's DSN for the caller to compare.
func ingestWhile(t *testing.T, dsn string, final int64, interval time.Duration, backup func(i int) string) string {
	t.Helper()
	top := new(atomic.Int64)
	top.Store(40)
	srv, err := replay.New(testutil.Fixture(t, testutil.Busy), replay.MaxHeight(top.Load), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	runCLI(t, "migrate", "migrate", "--db", dsn)
	w := startCLI(t, "writer", append([]string{"indexer", "--mode", "ingest", "--db", dsn,
		"--rpc-url", ts.URL, "--rest-url", ts.URL, "--json-rpc-url", ts.URL, "--listen", freeAddr(t)}, chainFlags...)...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go pace(ctx, top, final, interval)
	db, err := store.OpenReader(ctx, dsn, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	waitAt := func(h int64) {
		deadline := time.Now().Add(3 * time.Minute)
		for {
			got, err := db.IndexedHeight(ctx)
			if err == nil && got >= h {
				return
			}
			if done, err := w.exited(); done {
				t.Fatalf("writer exited: %v", err)
			}
			if time.Now().After(deadline) {
				t.Fatalf("writer never reached %d (at %d, %v)", h, got, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for i, at := range []int64{final / 4, final / 2, 3 * final / 4} {
		waitAt(at)
		backup(i)
	}
	waitAt(final)
	return backup(3)
}

func dumpOf(t *testing.T, dsn string) []byte {
	t.Helper()
	db, err := store.OpenReader(context.Background(), dsn, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	defer db.Close()
	var b bytes.Buffer
	if err := db.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestBackupWhileWriting backs up a store while the writer ingests into it, the ways
// docs/operations.md names: SQLite's VACUUM INTO (and the sqlite3 shell's .backup where the
// shell is installed) on the WAL-mode file, and pg_dump/pg_restore on PostgreSQL. Every copy
// taken mid-ingestion is a consistent store at one height that an API replica opens, and a
// copy taken while the writer idles dumps byte for byte like the original.
func TestBackupWhileWriting(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a writer over the busy capture")
	}
	const final = 200
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(dir, "live.db")
		shell, _ := exec.LookPath("sqlite3")
		if shell == "" {
			t.Log("no sqlite3 shell here: only VACUUM INTO is exercised")
		}
		conn, err := sql.Open("sqlite", "file:"+src+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		last := ingestWhile(t, "sqlite:"+src, final, 60*time.Millisecond, func(i int) string {
			out := filepath.Join(dir, fmt.Sprintf("vacuum-%d.db", i))
			start := time.Now()
			if _, err := conn.Exec("VACUUM INTO ?", out); err != nil {
				t.Fatalf("VACUUM INTO while writing: %v", err)
			}
			took := time.Since(start)
			b, err := sql.Open("sqlite", "file:"+out+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			h := checkConsistent(t, "VACUUM INTO copy "+out, b.QueryRow(consistencySQL))
			t.Logf("VACUUM INTO with the writer running: height %d in %v", h, took.Round(time.Millisecond))
			if shell != "" {
				bk := filepath.Join(dir, fmt.Sprintf("shell-%d.db", i))
				if out, err := exec.Command(shell, src, ".backup '"+bk+"'").CombinedOutput(); err != nil {
					t.Fatalf("sqlite3 .backup while writing: %v: %s", err, out)
				}
				c, err := sql.Open("sqlite", "file:"+bk+"?mode=ro")
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				h := checkConsistent(t, ".backup copy "+bk, c.QueryRow(consistencySQL))
				t.Logf("sqlite3 .backup with the writer running: height %d", h)
			}
			return "sqlite:" + out
		})
		if got, want := dumpOf(t, last), dumpOf(t, "sqlite:"+src); !bytes.Equal(got, want) {
			t.Errorf("the copy taken at rest dumps differently from the original (%d vs %d bytes)", len(got), len(want))
		}
	})
	t.Run("postgres", func(t *testing.T) {
		pgDump, err := exec.LookPath("pg_dump")
		if err != nil {
			t.Fatal("pg_dump is required (the PostgreSQL client package)")
		}
		pgRestore, err := exec.LookPath("pg_restore")
		if err != nil {
			t.Fatal("pg_restore is required (the PostgreSQL client package)")
		}
		src := testutil.PostgresDSN(t)
		dir := t.TempDir()
		// pg_dump took up to 4 s on the loaded machine: a block every 150 ms keeps the writer
		// writing through the three copies.
		last := ingestWhile(t, src, final, 150*time.Millisecond, func(i int) string {
			file := filepath.Join(dir, fmt.Sprintf("dump-%d.pgc", i))
			start := time.Now()
			if out, err := exec.Command(pgDump, "-Fc", "-f", file, "--dbname", src).CombinedOutput(); err != nil {
				t.Fatalf("pg_dump while writing: %v: %s", err, out)
			}
			took := time.Since(start)
			dst := testutil.PostgresDSN(t)
			if out, err := exec.Command(pgRestore, "--no-owner", "--exit-on-error", "--dbname", dst, file).CombinedOutput(); err != nil {
				t.Fatalf("pg_restore: %v: %s", err, out)
			}
			ctx := context.Background()
			c, err := pgx.Connect(ctx, dst)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			h := checkConsistent(t, "pg_dump copy", c.QueryRow(ctx, consistencySQL))
			t.Logf("pg_dump -Fc with the writer running: height %d in %v", h, took.Round(time.Millisecond))
			return dst
		})
		got, want := dumpOf(t, last), dumpOf(t, src)
		if !bytes.Equal(got, want) {
			t.Errorf("the restored copy taken at rest dumps differently from the original:\n%s", firstDiffLine(want, got))
		}
	})
}

func firstDiffLine(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	table := ""
	for i := 0; i < len(al) && i < len(bl); i++ {
		if strings.HasPrefix(al[i], "## ") {
			table = al[i]
		}
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d (table %s):\n  original %.300s\n  copy     %.300s", i+1, table, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d lines", len(al), len(bl))
}
