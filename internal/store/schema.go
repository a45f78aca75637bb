package store

// Schema versions as the read-only side sees them: OpenReader accepts a store whose
// schema_version rows are exactly this binary's migrations, and never migrates itself.

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

var (
	// ErrSchemaBehind: the store lacks migrations this binary has; `rollgate migrate` (or
	// the writer, which migrates when it opens the store) applies them.
	ErrSchemaBehind = errors.New("store schema is older than this binary")
	// ErrSchemaAhead: a newer binary migrated the store; this one does not know its tables.
	ErrSchemaAhead = errors.New("store schema is newer than this binary")
	// ErrReadOnly is returned by writes through a store opened with OpenReader.
	ErrReadOnly = errors.New("store opened read-only")
)

// checkSchema compares the store's applied migrations with this binary's.
func checkSchema(ctx context.Context, c conn, dialect, dsn string) error {
	ms, err := loadMigrations(dialect)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	applied, err := appliedVersions(ctx, c, dialect)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if len(applied) > 0 && applied[len(applied)-1] > len(ms) {
		return fmt.Errorf("%w: the store is at schema version %d, this binary knows %d: run a rollgate at least as new as the one that migrated it",
			ErrSchemaAhead, applied[len(applied)-1], len(ms))
	}
	for _, m := range ms {
		if !slices.Contains(applied, m.version) {
			return fmt.Errorf("%w: migration %s is not applied: run `rollgate migrate --db %s` (API replicas do not migrate the store)",
				ErrSchemaBehind, m.name, redact(dsn))
		}
	}
	return nil
}

// appliedVersions lists the schema_version rows in ascending order; none when the table is
// missing (a store nothing migrated yet).
func appliedVersions(ctx context.Context, c conn, dialect string) ([]int, error) {
	exists := "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
	if dialect == "postgres" {
		exists = "SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'schema_version'"
	}
	var n int
	if err := queryRow(ctx, c, exists, nil, &n); err != nil || n == 0 {
		return nil, err
	}
	r, err := c.query(ctx, "SELECT version FROM schema_version ORDER BY version")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []int
	for r.Next() {
		var v int
		if err := r.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, r.Err()
}

// readOnly is the backend of a store opened with OpenReader: its connections cannot write
// (the driver settings openBackend chose), and it has no write transaction to offer.
type readOnly struct{ backend }

func (readOnly) begin(context.Context) (wtx, error) { return nil, ErrReadOnly }
