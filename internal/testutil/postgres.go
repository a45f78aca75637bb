package testutil

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Backend is a store backend a test runs on: its name and, per test, the DSN of a fresh store.
type Backend struct {
	Name string
	DSN  func(t *testing.T) string
}

// Backends are both store backends: a SQLite file named file in the test's temp dir and a
// PostgreSQL database of PostgresDSN.
func Backends(file string) []Backend {
	return []Backend{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), file) }},
		{"postgres", func(t *testing.T) string { return PostgresDSN(t) }},
	}
}

// PostgresDSN creates a fresh database for the test and returns its DSN; the database is
// dropped when the test ends. The server is $ROLLGATE_TEST_PG (default
// postgres://postgres@127.0.0.1:5432/postgres). Without a reachable server the test is skipped
// on a developer machine and fails in CI (CI=true), where PostgreSQL must be running.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	admin := os.Getenv("ROLLGATE_TEST_PG")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is required in CI but unreachable at %s: %v", admin, err)
		}
		t.Skipf("PostgreSQL unreachable at %s: %v", admin, err)
	}
	defer conn.Close(context.Background())
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "rollgate_t_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("ROLLGATE_TEST_PG must be a postgres:// URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}
