package store

import (
	"context"
	"embed"
	"log/slog"

	"github.com/rollgate/rollgate/internal/sqldb"
)

//go:embed migrations
var migrationFiles embed.FS

// schema is the store's migrations, recorded in schema_version (the table and its numbers
// are those of every store created so far: keep them).
var schema = sqldb.Migrations{
	FS:      migrationFiles,
	Dir:     "migrations",
	Table:   "schema_version",
	Comment: "migrations applied to this database",
	// Any constant works; this one spells "rollgate".
	LockKey: 7237953928125212773,
}

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
	err := sqldb.RetryOpen(ctx, logger, "open store", func() error {
		be, err := sqldb.Open(ctx, dsn, sqldb.Options{})
		if err != nil {
			return err
		}
		if err := schema.Apply(ctx, be, be.Dialect()); err != nil {
			_ = be.Close()
			return err
		}
		db = newDB(be, logger)
		return nil
	})
	return db, err
}

// SetOpenStepHook makes h run at each step of Open, OpenReader and Migrate ("connect",
// "schema check", "migrate: begin", "migrate: locked", "migration <file>", "migrate: commit");
// see sqldb.SetStepHook, which it is.
func SetOpenStepHook(h func(ctx context.Context, step string, exec func(query string) error) error) (restore func()) {
	return sqldb.SetStepHook(h)
}

// OpenReader connects to the store named by dsn for reading only, as API replicas
// (`rollgate indexer --mode api`) do: it runs no DDL and no write, so any number of replicas
// can start beside the writer. The schema must be exactly this binary's: an older one
// (ErrSchemaBehind) asks the operator to run `rollgate migrate`, a newer one (ErrSchemaAhead)
// is refused. The DB it returns refuses WriteBlocks.
// Transient failures are retried as in Open.
func OpenReader(ctx context.Context, dsn string, logger *slog.Logger) (*DB, error) {
	var db *DB
	err := sqldb.RetryOpen(ctx, logger, "open store", func() error {
		be, err := sqldb.Open(ctx, dsn, sqldb.Options{ReadOnly: true})
		if err != nil {
			return err
		}
		if err := schema.Check(ctx, be.Reader(), be.Dialect(), dsn); err != nil {
			_ = be.Close()
			return err
		}
		db = newDB(be, logger)
		return nil
	})
	return db, err
}

// Migrate applies pending migrations to the store named by dsn and closes it (`rollgate migrate`).
// Transient failures are retried as in Open.
func Migrate(ctx context.Context, dsn string) error {
	return sqldb.RetryOpen(ctx, nil, "migrate", func() error {
		be, err := sqldb.Open(ctx, dsn, sqldb.Options{})
		if err != nil {
			return err
		}
		defer be.Close()
		return schema.Apply(ctx, be, be.Dialect())
	})
}
