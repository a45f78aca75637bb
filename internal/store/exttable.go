package store

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// ExtensionTable is a table an ingest extension owns: declared beside the extension, created
// by the writer when the extension starts (EnsureExtensionTables) rather than by one of the
// store's migrations, and recorded in extension_table so that Reset empties it and Prune
// removes its rows below the retained floor, the store knowing it by name only. The dump and
// the schema checks cover the store's own tables, not these.
type ExtensionTable struct {
	// Name is the table's name.
	Name string
	// SQLite and Postgres are the statements that create the table and its indexes in each
	// dialect, separated by ";". They run every time the extension starts, so each must be
	// idempotent (CREATE TABLE IF NOT EXISTS, CREATE INDEX IF NOT EXISTS).
	SQLite, Postgres string
	// HeightColumn is the column holding each row's block height.
	HeightColumn string
}

// ExtensionTableStore is a writer that keeps extension-owned tables (*DB is one).
type ExtensionTableStore interface {
	EnsureExtensionTables(ctx context.Context, tables []ExtensionTable) error
}

// identifier is what an extension may name a table or column: the names go into statements
// as they are.
var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// EnsureExtensionTables creates the tables that are missing and records every one in
// extension_table, in one transaction. Only the writer runs it: through OpenReader it fails
// with ErrReadOnly, as every write does.
func (d *DB) EnsureExtensionTables(ctx context.Context, tables []ExtensionTable) error {
	for _, t := range tables {
		if !identifier.MatchString(t.Name) || !identifier.MatchString(t.HeightColumn) {
			return fmt.Errorf("extension table %q: name and height column must be lower-case identifiers (height column %q)", t.Name, t.HeightColumn)
		}
	}
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	return inTx(ctx, d.be, func(tx sqldb.Tx) (func(), error) {
		for _, t := range tables {
			ddl := t.SQLite
			if d.be.Dialect() == sqldb.Postgres {
				ddl = t.Postgres
			}
			for _, stmt := range strings.Split(ddl, ";") {
				if strings.TrimSpace(stmt) == "" {
					continue
				}
				if err := tx.Exec(ctx, stmt); err != nil {
					return nil, fmt.Errorf("extension table %s: %w", t.Name, err)
				}
			}
			if err := tx.Exec(ctx, "INSERT INTO extension_table (name, height_column) VALUES (?, ?) "+
				"ON CONFLICT (name) DO UPDATE SET height_column = excluded.height_column", t.Name, t.HeightColumn); err != nil {
				return nil, fmt.Errorf("extension table %s: register: %w", t.Name, err)
			}
		}
		return nil, nil
	})
}

// extensionTables reads the registered extension tables, in name order.
func extensionTables(ctx context.Context, tx sqldb.Tx) ([]ExtensionTable, error) {
	rows, err := tx.Query(ctx, "SELECT name, height_column FROM extension_table ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("extension tables: %w", err)
	}
	defer rows.Close()
	var out []ExtensionTable
	for rows.Next() {
		var t ExtensionTable
		if err := rows.Scan(&t.Name, &t.HeightColumn); err != nil {
			return nil, fmt.Errorf("extension tables: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// clearExtensionTables empties the registered tables (Reset) or, with below > 0, removes
// their rows of heights below it (Prune).
func clearExtensionTables(ctx context.Context, tx sqldb.Tx, below int64) error {
	tables, err := extensionTables(ctx, tx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		q, args := "DELETE FROM "+t.Name, []any(nil)
		if below > 0 {
			q, args = q+" WHERE "+t.HeightColumn+" < ?", []any{below}
		}
		if err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("extension table %s: %w", t.Name, err)
		}
	}
	return nil
}
