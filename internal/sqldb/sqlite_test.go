package sqldb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openLite(t *testing.T) *Lite {
	t.Helper()
	b, err := Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "x.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b.(*Lite)
}

func queryRow(ctx context.Context, c Conn, q string, args []any, dest ...any) error {
	r, err := c.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer r.Close()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return err
		}
		return errors.New("no row")
	}
	if err := r.Scan(dest...); err != nil {
		return err
	}
	return r.Err()
}

// Read statements are prepared once per text, up to StmtCacheSize texts; texts beyond that
// still answer, unprepared.
func TestSQLiteStatementCache(t *testing.T) {
	sb := openLite(t)
	ctx := context.Background()
	// A cached text answers again with other arguments.
	for _, h := range []int64{1, 2} {
		var got int64
		if err := queryRow(ctx, sb.Reader(), "SELECT ? + 0", []any{h}, &got); err != nil || got != h {
			t.Fatalf("cached statement with %d: %d %v", h, got, err)
		}
	}
	for i := range StmtCacheSize + 5 {
		var got int
		q := "SELECT " + strings.TrimSuffix(strings.Repeat("1+", i+1), "+") + " AS n"
		if err := queryRow(ctx, sb.Reader(), q, nil, &got); err != nil || got != i+1 {
			t.Fatalf("%s: %d %v", q, got, err)
		}
	}
	if n := sb.CachedStatements(); n != StmtCacheSize {
		t.Fatalf("%d cached statements, want %d", n, StmtCacheSize)
	}
}

// TestSQLiteReadSlots: SQLite reads hold one of the pool's slots from the query until their
// rows are done, whether the caller reads them to the end (database/sql then closes them
// itself) or closes them early; with every slot held the next read waits for one, in order of
// arrival, and gives up with its context.
func TestSQLiteReadSlots(t *testing.T) {
	b := openLite(t)
	ctx := context.Background()
	c := b.Reader()
	n := b.ReadPool().Stats().MaxOpenConnections
	for i := range 200 { // read to the end without Close, closed early, and a failed query
		switch i % 3 {
		case 0:
			r, err := c.Query(ctx, "SELECT 1 UNION ALL SELECT 2")
			if err != nil {
				t.Fatal(err)
			}
			for r.Next() {
			}
		case 1:
			r, err := c.Query(ctx, "SELECT 1 UNION ALL SELECT 2")
			if err != nil {
				t.Fatal(err)
			}
			r.Next()
			r.Close()
		case 2:
			if _, err := c.Query(ctx, "SELECT nothing FROM nowhere"); err == nil {
				t.Fatal("a query of a missing table answered")
			}
		}
	}
	held := make([]Rows, n)
	for i := range held {
		r, err := c.Query(ctx, "SELECT 1")
		if err != nil {
			t.Fatalf("slot %d of %d after 200 reads: %v (a slot leaked)", i+1, n, err)
		}
		held[i] = r
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := c.Query(short, "SELECT 1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("read with all %d slots held: %v, want it to wait and give up", n, err)
	}
	// Two waiters, the first well before the second: the freed slots go in that order.
	order := make(chan int, 2)
	for w := range 2 {
		go func() {
			r, err := c.Query(ctx, "SELECT 1")
			if err != nil {
				t.Error(err)
				order <- -1
				return
			}
			order <- w
			r.Close()
		}()
		time.Sleep(50 * time.Millisecond)
	}
	held[0].Close()
	if first := <-order; first != 0 {
		t.Fatalf("waiter %d served first, want 0 (first come, first served)", first)
	}
	<-order
	for _, r := range held[1:] {
		r.Close()
	}
}

// TestSQLitePathWithURIChars: a path holding '#', '?' or '%' opens that very file, not the
// file its URI would name up to the '#' or '?'.
func TestSQLitePathWithURIChars(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a#01?b%20c.db")
	b, err := Open(context.Background(), "sqlite:"+path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := InTx(context.Background(), b, func(tx Tx) error { return tx.Exec(context.Background(), "CREATE TABLE x (y INTEGER)") }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the file at the path: %v", err)
	}
	for _, wrong := range []string{"a", "a#01", "a#01?b c.db"} {
		if _, err := os.Stat(filepath.Join(dir, wrong)); err == nil {
			t.Errorf("opened %q instead", wrong)
		}
	}
}

// Write statements outlive their transaction: a text one transaction prepared is kept on the
// writer connection (in the background, once the transaction ended) and the next
// transactions run it again, committed or rolled back, with their own arguments.
func TestSQLiteWriteStatementsKept(t *testing.T) {
	b := openLite(t)
	ctx := context.Background()
	write := func(v int64, commit bool) {
		t.Helper()
		tx, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Exec(ctx, "INSERT INTO kv (v) VALUES (?)", v); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := queryRow(ctx, tx, "SELECT count(*) FROM kv WHERE v = ?", []any{v}, &n); err != nil || n != 1 {
			t.Fatalf("read back %d in its transaction: %d %v", v, n, err)
		}
		if commit {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	tx, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Exec(ctx, "CREATE TABLE kv (v INTEGER NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	write(1, true)
	kept := func() int {
		b.wstmts.mu.Lock()
		defer b.wstmts.mu.Unlock()
		return len(b.wstmts.m)
	}
	for deadline := time.Now().Add(10 * time.Second); kept() < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d write statements kept, want 2", kept())
		}
	}
	write(2, false)
	write(3, true)
	var sum, n int64
	if err := queryRow(ctx, b.Reader(), "SELECT sum(v), count(*) FROM kv", nil, &sum, &n); err != nil || sum != 4 || n != 2 {
		t.Fatalf("sum %d of %d rows (%v), want 4 of 2", sum, n, err)
	}
	if k := kept(); k != 2 {
		t.Fatalf("%d write statements kept, want 2", k)
	}
}
