package track

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
	"github.com/rollgate/rollgate/internal/sqldb/sqldbtest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestOpenStoreOldLayout: a tracker store laid out by the code before the SQL layer moved to
// sqldb — its track_schema_version table created by that code's own statement (no comments),
// every migration applied and recorded by hand, a transfer in it — opens as current: the
// schema check accepts it, OpenStore applies nothing, the transfer reads back, and a binary
// that knows one migration fewer refuses it.
func TestOpenStoreOldLayout(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "old.db")
			if name == "postgres" {
				dsn = testutil.PostgresDSN(t)
			}
			applied := sqldbtest.LayOut(t, dsn, schema,
				[]string{"CREATE TABLE IF NOT EXISTS track_schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL)"},
				`INSERT INTO track_transfer (chain_id, tx_hash, created_ns, updated_ns, state, terminal, doc, owner, lease_until)
				VALUES ('a-1', 'OLD', 1, 1, '`+StateSubmitted+`', 0, '{}', '', 0)`)
			// The numbers stores were created with: a renumbered file would be applied twice.
			ms, err := schema.Load(sqldb.Dialect(name))
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []string{"0001_init.sql", "0002_event_order_indexes.sql", "0003_event_msg_index.sql"} {
				if i >= len(ms) || ms[i].Name != want || ms[i].Version != i+1 {
					t.Fatalf("migration %d is %s, want %s: numbers of existing stores must stay", i+1, ms[min(i, len(ms)-1)].Name, want)
				}
			}
			st := openT(t, dsn)
			if err := schema.Check(ctx, st.sql.Reader(), st.sql.Dialect, dsn); err != nil {
				t.Fatalf("schema check of the old layout: %v", err)
			}
			var n int
			if err := st.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM track_schema_version").Scan(&n); err != nil || n != applied || n < 3 {
				t.Fatalf("%d versions recorded (%v), want the %d the old code wrote", n, err, applied)
			}
			tr, err := st.Get(ctx, "a-1", "OLD")
			if err != nil || tr.State != StateSubmitted || !tr.Created.Equal(time.Unix(0, 1)) {
				t.Fatalf("transfer written before: %+v %v", tr, err)
			}
			files := fstest.MapFS{}
			for _, m := range ms[:len(ms)-1] {
				files[name+"/"+m.Name] = &fstest.MapFile{Data: []byte(m.SQL)}
			}
			older := schema
			older.FS, older.Dir = files, ""
			if err := older.Apply(ctx, st.sql, st.sql.Dialect); !errors.Is(err, sqldb.ErrSchemaAhead) {
				t.Fatalf("older binary: %v, want ErrSchemaAhead", err)
			}
		})
	}
}
