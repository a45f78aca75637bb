package track

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestOpenStoreOldLayout: a tracker store laid out by the code before the SQL layer moved to
// sqldb — its track_schema_version table created by that code's own statement (no comments),
// every migration applied and recorded by hand here — opens as current: the schema check
// accepts it, OpenStore applies nothing, and a row written before reads back.
func TestOpenStoreOldLayout(t *testing.T) {
	ctx := context.Background()
	for name, mk := range map[string]func(t *testing.T) (dsn, driver, src string){
		"sqlite": func(t *testing.T) (string, string, string) {
			p := filepath.Join(t.TempDir(), "old.db")
			return "sqlite:" + p, "sqlite", "file:" + p
		},
		"postgres": func(t *testing.T) (string, string, string) {
			dsn := testutil.PostgresDSN(t)
			return dsn, "pgx", dsn
		},
	} {
		t.Run(name, func(t *testing.T) {
			dsn, driver, src := mk(t)
			raw, err := sql.Open(driver, src)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			old := []string{"CREATE TABLE IF NOT EXISTS track_schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL)"}
			ents, err := migrationFiles.ReadDir("migrations/" + name)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range ents {
				b, err := migrationFiles.ReadFile("migrations/" + name + "/" + e.Name())
				if err != nil {
					t.Fatal(err)
				}
				old = append(old, string(b), "INSERT INTO track_schema_version (version, name) VALUES ("+string(rune('1'+i))+", '"+e.Name()+"')")
			}
			old = append(old, `INSERT INTO track_transfer (chain_id, tx_hash, created_ns, updated_ns, state, terminal, doc, owner, lease_until)
				VALUES ('a-1', 'OLD', 1, 1, '`+StateSubmitted+`', 0, '{}', '', 0)`)
			for _, q := range old {
				if _, err := raw.ExecContext(ctx, q); err != nil {
					t.Fatalf("%.60s: %v", q, err)
				}
			}
			db, err := sqldb.OpenSQL(ctx, dsn, sqldb.Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = schema.Check(ctx, db.Reader(), db.Dialect, dsn)
			db.Close()
			if err != nil {
				t.Fatalf("schema check of the old layout: %v", err)
			}
			st := openT(t, dsn)
			var n int
			if err := st.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM track_schema_version").Scan(&n); err != nil || n != len(ents) {
				t.Fatalf("%d versions recorded (%v), want the %d the old code wrote", n, err, len(ents))
			}
			tr, err := st.Get(ctx, "a-1", "OLD")
			if err != nil || tr.State != StateSubmitted || !tr.Created.Equal(time.Unix(0, 1)) {
				t.Fatalf("transfer written before: %+v %v", tr, err)
			}
			// A binary that knows fewer migrations than the store holds refuses it.
			older := schema
			older.FS = fstest.MapFS{}
			for _, e := range ents[:len(ents)-1] {
				b, _ := migrationFiles.ReadFile("migrations/" + name + "/" + e.Name())
				older.FS.(fstest.MapFS)[name+"/"+e.Name()] = &fstest.MapFile{Data: b}
			}
			if err := older.Apply(ctx, st.sql, st.sql.Dialect); !errors.Is(err, sqldb.ErrSchemaAhead) {
				t.Fatalf("older binary: %v, want ErrSchemaAhead", err)
			}
		})
	}
}
