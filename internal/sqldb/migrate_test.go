package sqldb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rollgate/rollgate/internal/testutil"
)

// dsns are an empty database of each backend.
func dsns(t *testing.T) map[Dialect]func(t *testing.T) string {
	return map[Dialect]func(t *testing.T) string{
		SQLite:   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "m.db") },
		Postgres: func(t *testing.T) string { return testutil.PostgresDSN(t) },
	}
}

func files(names ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for _, n := range names {
		for _, d := range []Dialect{SQLite, Postgres} {
			table := strings.TrimSuffix(n[5:], ".sql")
			m[string(d)+"/"+n] = &fstest.MapFile{Data: []byte("CREATE TABLE " + table + " (v INTEGER)")}
		}
	}
	return m
}

func openW(t *testing.T, dsn string) Backend {
	t.Helper()
	b, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func count(t *testing.T, c Conn, q string) int {
	t.Helper()
	var n int
	if err := queryRow(context.Background(), c, q, nil, &n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestMigrations: the runner on both backends — applies pending files once each, in version
// order and whatever order they arrive in; two stores with their own version tables share a
// database; the reader's check refuses an older and a newer schema; the writer refuses a
// newer one.
func TestMigrations(t *testing.T) {
	ctx := context.Background()
	for d, mk := range dsns(t) {
		t.Run(string(d), func(t *testing.T) {
			dsn := mk(t)
			a := Migrations{FS: files("0001_a1.sql", "0003_a3.sql"), Table: "a_version", Comment: "a's migrations", LockKey: 1}
			b := Migrations{FS: files("0001_b1.sql"), Table: "b_version", Comment: "b's migrations", LockKey: 2}
			be := openW(t, dsn)
			if err := a.Check(ctx, be.Reader(), d, dsn); !errors.Is(err, ErrSchemaBehind) {
				t.Fatalf("check of an empty database: %v, want ErrSchemaBehind", err)
			}
			for range 2 { // the second run finds nothing to do
				if err := a.Apply(ctx, be, d); err != nil {
					t.Fatal(err)
				}
				if err := b.Apply(ctx, be, d); err != nil {
					t.Fatal(err)
				}
			}
			if n := count(t, be.Reader(), "SELECT COUNT(*) FROM a_version"); n != 2 {
				t.Fatalf("a_version has %d rows, want 2", n)
			}
			if n := count(t, be.Reader(), "SELECT COUNT(*) FROM b_version"); n != 1 {
				t.Fatalf("b_version has %d rows, want 1", n)
			}
			if err := a.Check(ctx, be.Reader(), d, dsn); err != nil {
				t.Fatalf("check after apply: %v", err)
			}
			// A file that lands below the last applied one is applied, once.
			a.FS = files("0001_a1.sql", "0002_a2.sql", "0003_a3.sql")
			if err := a.Check(ctx, be.Reader(), d, dsn); !errors.Is(err, ErrSchemaBehind) || !strings.Contains(err.Error(), "0002_a2.sql") {
				t.Fatalf("check with 0002 pending: %v", err)
			}
			if err := a.Apply(ctx, be, d); err != nil {
				t.Fatal(err)
			}
			if n := count(t, be.Reader(), "SELECT COUNT(*) FROM a2"); n != 0 {
				t.Fatalf("a2: %d", n)
			}
			// An older binary (which knows 0001 only) meets a newer schema.
			old := Migrations{FS: files("0001_b1.sql"), Table: "a_version", Comment: "a's migrations", LockKey: 1}
			if err := old.Check(ctx, be.Reader(), d, dsn); !errors.Is(err, ErrSchemaAhead) || !strings.Contains(err.Error(), "version 3") {
				t.Fatalf("older reader: %v, want ErrSchemaAhead naming version 3", err)
			}
			if err := old.Apply(ctx, be, d); !errors.Is(err, ErrSchemaAhead) {
				t.Fatalf("older writer: %v, want ErrSchemaAhead", err)
			}
			// A reader's connections run no DDL and it has no write transaction.
			ro, err := Open(ctx, dsn, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			if err := a.Check(ctx, ro.Reader(), d, dsn); err != nil {
				t.Fatalf("reader's check: %v", err)
			}
			if _, err := ro.Begin(ctx); !errors.Is(err, ErrReadOnly) {
				t.Fatalf("Begin on a reader: %v", err)
			}
			if r, err := ro.Reader().Query(ctx, "CREATE TABLE sneaky (v INTEGER)"); err == nil {
				for r.Next() {
				}
				if r.Close(); r.Err() == nil {
					t.Fatal("DDL through a reader's connection succeeded")
				}
			}
		})
	}
}

func TestMigrationNames(t *testing.T) {
	for _, tc := range []struct {
		fs   fstest.MapFS
		want string
	}{
		{fstest.MapFS{"sqlite/x_init.sql": {}}, "version number"},
		{fstest.MapFS{"sqlite/0000_init.sql": {}}, "version number"},
		{fstest.MapFS{"sqlite/0001_a.sql": {}, "sqlite/0001_b.sql": {}}, "share version 1"},
	} {
		_, err := Migrations{FS: tc.fs}.Load(SQLite)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.fs, err, tc.want)
		}
	}
	ms, err := Migrations{FS: fstest.MapFS{"sqlite/0002_b.sql": {}, "sqlite/0001_a.sql": {}, "sqlite/README": {}}}.Load(SQLite)
	if err != nil || len(ms) != 2 || ms[0].Version != 1 || ms[1].Name != "0002_b.sql" {
		t.Fatalf("%+v %v", ms, err)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h:5432/db?sslmode=disable":        "postgres://…@h:5432/db?sslmode=disable",
		"postgresql://u:p%40ss@h/db":                           "postgresql://…@h/db",
		"postgres://h/db?user=u&password=secret&sslmode=allow": "postgres://h/db?user=u&password=…&sslmode=allow",
		"postgres://h/db?PASSWORD=secret":                      "postgres://h/db?PASSWORD=…",
		"sqlite:/tmp/x.db":                                     "sqlite:/tmp/x.db",
		"mysql://root:hunter2@h/db":                            "mysql://…@h/db",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	for _, dsn := range []string{"mysql://u:secret@h/db", "postgres://u:secret@[bad/db", "postgres://h:1/db?password=secret&connect_timeout=x"} {
		_, err := Open(context.Background(), dsn, Options{})
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q): %v", dsn, err)
		}
	}
}

// TestRetryOpen: a transient failure is tried again (and logged), a permanent one is
// returned at once.
func TestRetryOpen(t *testing.T) {
	ctx := context.Background()
	n := 0
	err := RetryOpen(ctx, nil, "open", func() error {
		n++
		if n < 3 {
			return fmt.Errorf("read: %w", io.ErrUnexpectedEOF) // a session lost: retried at once
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("after transient failures: %v, %d attempts", err, n)
	}
	n = 0
	perm := errors.New("disk full")
	if err := RetryOpen(ctx, nil, "open", func() error { n++; return perm }); !errors.Is(err, perm) || n != 1 {
		t.Fatalf("permanent: %v after %d attempts", err, n)
	}
}

// resetCounter counts the pool resets InTx asks for.
type resetCounter struct {
	Backend
	resets int
}

func (r *resetCounter) Reset() { r.resets++ }

// TestInTx: committed on success, rolled back on error, the pool reset after a lost connection.
func TestInTx(t *testing.T) {
	ctx := context.Background()
	for d, mk := range dsns(t) {
		t.Run(string(d), func(t *testing.T) {
			be := &resetCounter{Backend: openW(t, mk(t))}
			if err := InTx(ctx, be, func(tx Tx) error { return tx.Exec(ctx, "CREATE TABLE x (v INTEGER)") }); err != nil {
				t.Fatal(err)
			}
			boom := errors.New("boom")
			err := InTx(ctx, be, func(tx Tx) error {
				if err := tx.InsertRows(ctx, "x", []string{"v"}, [][]any{{1}, {2}}); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v", err)
			}
			if n := count(t, be.Reader(), "SELECT COUNT(*) FROM x"); n != 0 {
				t.Fatalf("%d rows after a rolled-back transaction", n)
			}
			if err := InTx(ctx, be, func(tx Tx) error { return tx.InsertRows(ctx, "x", []string{"v"}, [][]any{{1}, {2}, {3}}) }); err != nil {
				t.Fatal(err)
			}
			if n := count(t, be.Reader(), "SELECT COUNT(*) FROM x"); n != 3 {
				t.Fatalf("%d rows, want 3", n)
			}
			if be.resets != 0 {
				t.Fatalf("%d resets without a lost connection", be.resets)
			}
			lost := fmt.Errorf("write: %w", io.ErrUnexpectedEOF)
			if err := InTx(ctx, be, func(Tx) error { return lost }); !errors.Is(err, lost) || be.resets != 1 {
				t.Fatalf("lost connection: %v, %d resets", err, be.resets)
			}
		})
	}
}

// TestWriterCompressesWithLZ4: a writer's large values are stored lz4-compressed when the
// server has lz4 (pglz otherwise); a DSN naming a method keeps it.
func TestWriterCompressesWithLZ4(t *testing.T) {
	ctx := context.Background()
	dsn := testutil.PostgresDSN(t)
	probe := openW(t, dsn)
	var hasLZ4 int
	if err := queryRow(ctx, probe.Reader(), "SELECT COUNT(*) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)", nil, &hasLZ4); err != nil {
		t.Fatal(err)
	}
	want := "pglz"
	if hasLZ4 == 1 {
		want = "lz4"
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	for _, tc := range []struct{ name, dsn, want string }{
		{"default", dsn, want},
		{"named in the dsn", dsn + sep + "default_toast_compression=pglz", "pglz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			be := openW(t, tc.dsn)
			table := "toast_" + strings.ReplaceAll(tc.name, " ", "_")
			err := InTx(ctx, be, func(tx Tx) error {
				if err := tx.Exec(ctx, "CREATE TABLE "+table+" (data TEXT)"); err != nil {
					return err
				}
				// Compressible and above the 2 kB TOAST threshold, like a stored tx.
				return tx.InsertRows(ctx, table, []string{"data"}, [][]any{{strings.Repeat(`{"key":"value","n":12345},`, 400)}})
			})
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if err := queryRow(ctx, be.Reader(), "SELECT COALESCE(pg_column_compression(data), 'none') FROM "+table, nil, &got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("stored with %s, want %s", got, tc.want)
			}
		})
	}
}
