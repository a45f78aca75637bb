package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rollgate/rollgate/internal/testutil"
)

func TestIsTransientClassifies(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("write: %w", &pgconn.PgError{Code: code}) }
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"admin shutdown (pg_terminate_backend)", pg("57P01"), true},
		{"crash shutdown", pg("57P02"), true},
		{"cannot connect now", pg("57P03"), true},
		{"connection failure", pg("08006"), true},
		{"serialization failure", pg("40001"), true},
		{"deadlock", pg("40P01"), true},
		{"too many connections", pg("53300"), true},
		{"query canceled", pg("57014"), false},
		{"disk full", pg("53100"), false},
		{"undefined column (schema mismatch)", pg("42703"), false},
		{"unique violation", pg("23505"), false},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"unexpected EOF", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"net error", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"context canceled", fmt.Errorf("write: %w", context.Canceled), false},
		{"deadline", context.DeadlineExceeded, false},
		{"schema ahead", fmt.Errorf("open: %w", ErrSchemaAhead), false},
		{"plain", errors.New("boom"), false},
	}
	for _, tc := range tests {
		if got := IsTransient(tc.err); got != tc.want {
			t.Errorf("%s: IsTransient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// The errors the drivers really return for the cases IsTransient is for.
func TestIsTransientOnRealErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite busy", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "busy.db")
		open := func() *sql.DB {
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)&_pragma=journal_mode(WAL)&_txlock=immediate")
			if err != nil {
				t.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			t.Cleanup(func() { db.Close() })
			return db
		}
		a, b := open(), open()
		if _, err := a.Exec("CREATE TABLE x (v INTEGER)"); err != nil {
			t.Fatal(err)
		}
		tx, err := a.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		_, err = b.Begin()
		if err == nil || !IsTransient(err) {
			t.Fatalf("second writer: %v, IsTransient %v", err, IsTransient(err))
		}
		if _, err := b.Exec("SELEC 1"); err == nil || IsTransient(err) {
			t.Fatalf("a syntax error is transient: %v", err)
		}
	})
	t.Run("postgres session terminated", func(t *testing.T) {
		dsn := testutil.PostgresDSN(t)
		victim, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer victim.Close(ctx)
		admin, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close(ctx)
		var pid uint32 = victim.PgConn().PID()
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1)", int(pid)); err != nil {
			t.Fatal(err)
		}
		_, err = victim.Exec(ctx, "SELECT 1")
		if err == nil || !IsTransient(err) {
			t.Fatalf("query on a terminated session: %v, IsTransient %v", err, IsTransient(err))
		}
		// And a later use of the now closed connection.
		if _, err := victim.Exec(ctx, "SELECT 1"); err == nil || !IsTransient(err) {
			t.Fatalf("query on the closed connection: %v, IsTransient %v", err, IsTransient(err))
		}
		if _, err := admin.Exec(ctx, "SELECT nope FROM pg_class"); err == nil || IsTransient(err) {
			t.Fatalf("undefined column: %v, IsTransient %v", err, IsTransient(err))
		}
	})
}
