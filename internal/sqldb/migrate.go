package sqldb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Migrations are one store's schema: files <Dir>/<dialect>/NNNN_<name>.sql in FS, applied in
// version order and recorded in the store's own version table, so two stores can share a
// database.
//
// Numbers may be reserved per feature (the indexer's 0002 NFT, 0003 EVM), so one may land
// before a lower one; each is applied once, whatever the order it arrives in, and no two may
// share a number.
type Migrations struct {
	FS  fs.FS
	Dir string
	// Table is the version table (version INTEGER PRIMARY KEY, name TEXT NOT NULL).
	Table string
	// Comment describes the version table (PostgreSQL COMMENT ON TABLE, SQLite DDL comment).
	Comment string
	// LockKey is the PostgreSQL advisory lock that keeps two starting processes from
	// migrating at once; each store has its own.
	LockKey int64
}

// Migration is one file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Load reads the migrations of dialect d in version order.
func (m Migrations) Load(d Dialect) ([]Migration, error) {
	dir := path.Join(m.Dir, string(d))
	ents, err := fs.ReadDir(m.FS, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
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
		b, err := fs.ReadFile(m.FS, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := range out {
		if i > 0 && out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations of %s: %s and %s share version %d", d, out[i-1].Name, out[i].Name, out[i].Version)
		}
	}
	return out, nil
}

// ahead is ErrSchemaAhead when applied holds a version ms does not know (a newer binary's).
func ahead(applied []int, ms []Migration) error {
	known := 0
	for _, m := range ms {
		known = max(known, m.Version)
	}
	unknown := 0
	for _, v := range applied {
		if !slices.ContainsFunc(ms, func(m Migration) bool { return m.Version == v }) {
			unknown = max(unknown, v)
		}
	}
	if unknown == 0 {
		return nil
	}
	return fmt.Errorf("%w: the store is at schema version %d, this binary knows %d: run a rollgate at least as new as the one that migrated it",
		ErrSchemaAhead, max(unknown, known), known)
}

// Apply applies every pending migration in one transaction of b (so a failure at any point,
// a transient one included, leaves the schema as it was), recording each in the version table.
// A database that holds a migration this binary does not know is refused (ErrSchemaAhead).
// On PostgreSQL the advisory lock keeps two starting processes from racing; SQLite's BEGIN
// IMMEDIATE does the same. Only writers call it: it is the one place that runs the schema's DDL
// (a writer also creates the tables an ingest extension owns: store.DB.EnsureExtensionTables).
func (m Migrations) Apply(ctx context.Context, b Beginner, d Dialect) (err error) {
	ms, err := m.Load(d)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	tx, err := b.Begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err := step(ctx, "migrate: begin", tx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if d == Postgres {
		if err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock("+strconv.FormatInt(m.LockKey, 10)+")"); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
	}
	if err := step(ctx, "migrate: locked", tx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	create := "CREATE TABLE IF NOT EXISTS " + m.Table + " ( -- " + m.Comment + "\n" +
		"  version INTEGER PRIMARY KEY, -- number of the migration file\n" +
		"  name    TEXT NOT NULL        -- its file name\n)"
	if err := tx.Exec(ctx, create); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if d == Postgres {
		if err := tx.Exec(ctx, "COMMENT ON TABLE "+m.Table+" IS '"+strings.ReplaceAll(m.Comment, "'", "''")+"'"); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	applied, err := versions(ctx, tx, m.Table)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := ahead(applied, ms); err != nil {
		return err
	}
	for _, mg := range ms {
		if slices.Contains(applied, mg.Version) {
			continue
		}
		if err := step(ctx, "migration "+mg.Name, tx); err != nil {
			return fmt.Errorf("migration %s: %w", mg.Name, err)
		}
		if err := tx.Exec(ctx, mg.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", mg.Name, err)
		}
		if err := tx.Exec(ctx, "INSERT INTO "+m.Table+" (version, name) VALUES (?, ?)", mg.Version, mg.Name); err != nil {
			return fmt.Errorf("migration %s: %w", mg.Name, err)
		}
	}
	if err := step(ctx, "migrate: commit", tx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}

// Check is a reader's Apply: it runs no DDL and accepts a database whose applied migrations
// are exactly this binary's. An older schema (ErrSchemaBehind) asks the operator to run
// `rollgate migrate`, a newer one (ErrSchemaAhead) is refused. dsn is quoted redacted.
func (m Migrations) Check(ctx context.Context, c Conn, d Dialect, dsn string) error {
	if err := step(ctx, "schema check", c); err != nil {
		return err
	}
	ms, err := m.Load(d)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	exists := "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
	if d == Postgres {
		exists = "SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = ?"
	}
	var applied []int
	n, err := queryInt(ctx, c, exists, m.Table)
	if err == nil && n > 0 {
		applied, err = versions(ctx, c, m.Table)
	}
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if err := ahead(applied, ms); err != nil {
		return err
	}
	for _, mg := range ms {
		if !slices.Contains(applied, mg.Version) {
			return fmt.Errorf("%w: migration %s is not applied: run `rollgate migrate --db %s` (API replicas do not migrate the store)",
				ErrSchemaBehind, mg.Name, Redact(dsn))
		}
	}
	return nil
}

// versions lists the version table's rows in ascending order.
func versions(ctx context.Context, c Conn, table string) ([]int, error) {
	r, err := c.Query(ctx, "SELECT version FROM "+table+" ORDER BY version")
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

func queryInt(ctx context.Context, c Conn, q string, args ...any) (int, error) {
	r, err := c.Query(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int
	if !r.Next() {
		if err := r.Err(); err != nil {
			return 0, err
		}
		return 0, errors.New("no row")
	}
	if err := r.Scan(&n); err != nil {
		return 0, err
	}
	return n, r.Err()
}
