package store

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations
var migrations embed.FS

// Open connects to the store named by dsn as its writer and applies pending migrations:
//
//   - "sqlite:<path>" (also "sqlite://<path>"): an embedded SQLite file in WAL mode, created if missing;
//   - "postgres://…" or "postgresql://…": PostgreSQL through a pgx pool.
//
// A store migrated by a newer binary is refused (ErrSchemaAhead): this one does not know its tables.
//
// A transient failure (IsTransient: the server ended the session, is restarting or cannot be
// reached yet, SQLite is busy) at any step — connecting, migrating, committing — is weather:
// the whole open is tried again with backoff on a fresh connection until ctx ends. Migrations
// run in one transaction, so a retry starts from the schema as it was.
func Open(ctx context.Context, dsn string, logger *slog.Logger) (*DB, error) {
	var db *DB
	err := retryOpen(ctx, logger, "open store", func() error {
		be, dialect, err := openBackend(ctx, dsn, false)
		if err != nil {
			return err
		}
		if err := migrate(ctx, be, dialect); err != nil {
			_ = be.close()
			return err
		}
		db = newDB(be, logger)
		return nil
	})
	return db, err
}

// openRetryMin and openRetryMax bound the backoff between two attempts to open a store.
const (
	openRetryMin = 100 * time.Millisecond
	openRetryMax = 5 * time.Second
)

// retryOpen runs f until it succeeds, returns a permanent error, or ctx ends; transient
// errors are logged at warn and retried: at once (openRetryMin) after a lost session, with
// exponential backoff up to openRetryMax while the server cannot be reached.
func retryOpen(ctx context.Context, logger *slog.Logger, what string, f func() error) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	wait := openRetryMin
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil || !IsTransient(err) || ctx.Err() != nil {
			return err
		}
		next := wait
		if SessionLost(err) {
			// The server answered and ended the session: a fresh one is tried at once.
			next, wait = openRetryMin, openRetryMin
		} else {
			wait = min(2*wait, openRetryMax)
		}
		logger.Warn(what+" failed; retrying", "err", err, "attempt", attempt, "wait", next)
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// stepHook, when set (fault-injection tests: SetOpenStepHook), runs at each step of opening a
// store with the connection the step uses; an error it returns fails the step.
var stepHook func(ctx context.Context, step string, c conn) error

// SetOpenStepHook makes h run at each step of Open, OpenReader and Migrate ("connect",
// "schema check", "migrate: begin", "migrate: locked", "migration <file>", "migrate: commit"),
// with exec running a statement on the step's own connection (inside the migration's
// transaction for the migrate steps); an error h returns fails the step as the database would.
// It is for tests that end the session at a given step (nil h: none); it returns the previous
// hook's restore. Not safe to call while stores are being opened.
func SetOpenStepHook(h func(ctx context.Context, step string, exec func(query string) error) error) (restore func()) {
	prev := stepHook
	if h == nil {
		stepHook = nil
	} else {
		stepHook = func(ctx context.Context, step string, c conn) error {
			return h(ctx, step, func(q string) error {
				r, err := c.query(ctx, q)
				if err != nil {
					return err
				}
				for r.Next() {
				}
				r.Close()
				return r.Err()
			})
		}
	}
	return func() { stepHook = prev }
}

func step(ctx context.Context, name string, c conn) error {
	if stepHook == nil {
		return nil
	}
	return stepHook(ctx, name, c)
}

// OpenReader connects to the store named by dsn for reading only, as API replicas
// (`rollgate indexer --mode api`) do: it runs no DDL and no write, so any number of replicas
// can start beside the writer. The schema must be exactly this binary's: an older one
// (ErrSchemaBehind) asks the operator to run `rollgate migrate`, a newer one (ErrSchemaAhead)
// is refused. The DB it returns refuses WriteBlocks.
// Transient failures are retried as in Open.
func OpenReader(ctx context.Context, dsn string, logger *slog.Logger) (*DB, error) {
	var db *DB
	err := retryOpen(ctx, logger, "open store", func() error {
		be, dialect, err := openBackend(ctx, dsn, true)
		if err != nil {
			return err
		}
		err = step(ctx, "schema check", be.reader())
		if err == nil {
			err = checkSchema(ctx, be.reader(), dialect, dsn)
		}
		if err != nil {
			_ = be.close()
			return err
		}
		db = newDB(readOnly{be}, logger)
		return nil
	})
	return db, err
}

// Migrate applies pending migrations to the store named by dsn and closes it (`rollgate migrate`).
// Transient failures are retried as in Open.
func Migrate(ctx context.Context, dsn string) error {
	return retryOpen(ctx, nil, "migrate", func() error {
		be, dialect, err := openBackend(ctx, dsn, false)
		if err != nil {
			return err
		}
		defer be.close()
		return migrate(ctx, be, dialect)
	})
}

// openBackend connects; readOnly opens connections that cannot write (SQLite query_only,
// PostgreSQL default_transaction_read_only) and never creates a SQLite file.
func openBackend(ctx context.Context, dsn string, readOnly bool) (backend, string, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(dsn, "sqlite:")
		path = strings.TrimPrefix(path, "//")
		if readOnly {
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return nil, "", fmt.Errorf("%w: no store at %s: run `rollgate migrate --db %s` (API replicas do not create or migrate the store)",
					ErrSchemaBehind, path, redact(dsn))
			}
		}
		be, err := openSQLite(ctx, path, readOnly)
		if err == nil {
			if err = step(ctx, "connect", be.reader()); err != nil {
				_ = be.close()
				return nil, "", err
			}
		}
		return be, "sqlite", err
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		be, err := openPostgres(ctx, dsn, readOnly)
		if err == nil {
			if err = step(ctx, "connect", be.reader()); err != nil {
				_ = be.close()
				return nil, "", err
			}
		}
		return be, "postgres", err
	}
	return nil, "", fmt.Errorf("unsupported store DSN %q: want sqlite:<path> or postgres://…", redact(dsn))
}

// redact keeps a password out of error messages.
func redact(dsn string) string {
	if i := strings.Index(dsn, "://"); i >= 0 {
		if j := strings.Index(dsn[i+3:], "@"); j >= 0 {
			return dsn[:i+3] + "…" + dsn[i+3+j:]
		}
	}
	return dsn
}

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations(dialect string) ([]migration, error) {
	dir := "migrations/" + dialect
	ents, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("migration %s: name must start with a version number", name)
		}
		b, err := fs.ReadFile(migrations, dir+"/"+name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	// Numbers are reserved per feature (0002 NFT, 0003 EVM), so one may land before a lower
	// one; each is applied once, whatever the order it arrives in, and no two may share a number.
	for i := range out {
		if i > 0 && out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations of %s: %s and %s share version %d", dialect, out[i-1].name, out[i].name, out[i].version)
		}
	}
	return out, nil
}

// migrate applies every pending migration in one transaction, recording each in
// schema_version. On PostgreSQL an advisory lock keeps two starting processes from racing;
// SQLite's BEGIN IMMEDIATE does the same.
func migrate(ctx context.Context, be backend, dialect string) (err error) {
	ms, err := loadMigrations(dialect)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	tx, err := be.begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.rollback(context.WithoutCancel(ctx))
		}
	}()
	if err := step(ctx, "migrate: begin", tx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if dialect == "postgres" {
		// Any constant works; this one spells "rollgate".
		if err := tx.exec(ctx, "SELECT pg_advisory_xact_lock(7237953928125212773)"); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
	}
	if err := step(ctx, "migrate: locked", tx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	create := "CREATE TABLE IF NOT EXISTS schema_version ( -- migrations applied to this database\n" +
		"  version INTEGER PRIMARY KEY, -- number of the migration file\n" +
		"  name    TEXT NOT NULL        -- its file name\n)"
	if err := tx.exec(ctx, create); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if dialect == "postgres" {
		if err := tx.exec(ctx, "COMMENT ON TABLE schema_version IS 'migrations applied to this database'"); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	applied := map[int]bool{}
	r, err := tx.query(ctx, "SELECT version FROM schema_version")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for r.Next() {
		var v int
		if err := r.Scan(&v); err != nil {
			r.Close()
			return fmt.Errorf("migrate: %w", err)
		}
		applied[v] = true
	}
	r.Close()
	if err := r.Err(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for v := range applied {
		if v > len(ms) {
			return fmt.Errorf("%w: the store is at schema version %d, this binary knows %d: run a rollgate at least as new as the one that migrated it",
				ErrSchemaAhead, v, len(ms))
		}
	}
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		if err := step(ctx, "migration "+m.name, tx); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if err := tx.exec(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if err := tx.exec(ctx, "INSERT INTO schema_version (version, name) VALUES (?, ?)", m.version, m.name); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	if err := step(ctx, "migrate: commit", tx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := tx.commit(ctx); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}
