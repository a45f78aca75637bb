package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/sqldb"
	"github.com/rollgate/rollgate/internal/sqldb/sqldbtest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// openModeStore is one backend's way of preparing a store for OpenReader.
type openModeStore struct {
	name string
	// empty returns the DSN of a store nothing has migrated; populated, one Open migrated and
	// wrote m into and closed.
	empty, populated func(t *testing.T, m model) string
	// guard makes any later DDL or write on the store fail or be detected; check reports
	// whether one happened.
	guard func(t *testing.T, dsn string) (check func(t *testing.T))
	// exec runs a statement as an operator would (outside the store package's connections).
	exec func(t *testing.T, dsn, q string)
}

func openModeStores() []openModeStore {
	sqlitePath := func(dsn string) string { return strings.TrimPrefix(dsn, "sqlite:") }
	sqliteExec := func(t *testing.T, dsn, q string) {
		t.Helper()
		db, err := sql.Open("sqlite", "file:"+sqlitePath(dsn))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	pgExec := func(t *testing.T, dsn, q string) {
		t.Helper()
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	populate := func(t *testing.T, dsn string, m model) string {
		t.Helper()
		db, err := Open(context.Background(), dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.WriteBlocks(context.Background(), m.bundles); err != nil {
			t.Fatal(err)
		}
		return dsn
	}
	return []openModeStore{
		{
			name:  "sqlite",
			empty: func(t *testing.T, _ model) string { return "sqlite:" + filepath.Join(t.TempDir(), "idx.db") },
			populated: func(t *testing.T, m model) string {
				return populate(t, "sqlite:"+filepath.Join(t.TempDir(), "idx.db"), m)
			},
			// SQLite has no DDL hook: the file's bytes and schema cookie (bumped by every DDL)
			// must not move.
			guard: func(t *testing.T, dsn string) func(t *testing.T) {
				before, err := os.ReadFile(sqlitePath(dsn))
				if err != nil {
					t.Fatal(err)
				}
				cookie := sqliteSchemaCookie(t, dsn)
				return func(t *testing.T) {
					after, err := os.ReadFile(sqlitePath(dsn))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(before, after) || sqliteSchemaCookie(t, dsn) != cookie {
						t.Error("the reader changed the SQLite file")
					}
				}
			},
			exec: sqliteExec,
		},
		{
			name:      "postgres",
			empty:     func(t *testing.T, _ model) string { return testutil.PostgresDSN(t) },
			populated: func(t *testing.T, m model) string { return populate(t, testutil.PostgresDSN(t), m) },
			// An event trigger fails every DDL statement on the database, even a no-op
			// CREATE TABLE IF NOT EXISTS.
			guard: func(t *testing.T, dsn string) func(t *testing.T) {
				pgExec(t, dsn, `CREATE FUNCTION forbid_ddl() RETURNS event_trigger LANGUAGE plpgsql AS
					$$ BEGIN RAISE EXCEPTION 'DDL forbidden: %', tg_tag; END $$`)
				pgExec(t, dsn, "CREATE EVENT TRIGGER forbid_ddl ON ddl_command_start EXECUTE FUNCTION forbid_ddl()")
				return func(t *testing.T) {}
			},
			exec: pgExec,
		},
	}
}

func sqliteSchemaCookie(t *testing.T, dsn string) int64 {
	t.Helper()
	db, err := testutil.OpenRawStore(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int64
	if err := db.QueryRow("PRAGMA schema_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestOpenReader: an API replica's store runs no DDL, refuses a schema other than its own
// with an error that says what to do, and reads what the writer wrote.
func TestOpenReader(t *testing.T) {
	m := buildModel(10)
	ctx := context.Background()
	for _, s := range openModeStores() {
		t.Run(s.name+"/unmigrated", func(t *testing.T) {
			dsn := s.empty(t, m)
			_, err := OpenReader(ctx, dsn, nil)
			if !errors.Is(err, ErrSchemaBehind) || !strings.Contains(err.Error(), "rollgate migrate") {
				t.Fatalf("err = %v, want ErrSchemaBehind naming `rollgate migrate`", err)
			}
			if s.name == "sqlite" {
				if _, err := os.Stat(strings.TrimPrefix(dsn, "sqlite:")); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("the reader created the store file: %v", err)
				}
				// A file that exists but holds no schema is as unmigrated.
				s.exec(t, dsn, "CREATE TABLE unrelated (x INTEGER)")
				if _, err := OpenReader(ctx, dsn, nil); !errors.Is(err, ErrSchemaBehind) {
					t.Fatalf("empty file: err = %v, want ErrSchemaBehind", err)
				}
			}
			// After `rollgate migrate` the same reader starts.
			if err := Migrate(ctx, dsn); err != nil {
				t.Fatal(err)
			}
			db, err := OpenReader(ctx, dsn, nil)
			if err != nil {
				t.Fatalf("after migrate: %v", err)
			}
			db.Close()
		})
		t.Run(s.name+"/partly migrated", func(t *testing.T) {
			dsn := s.populated(t, m)
			s.exec(t, dsn, "DELETE FROM schema_version WHERE version = 1")
			if _, err := OpenReader(ctx, dsn, nil); !errors.Is(err, ErrSchemaBehind) || !strings.Contains(err.Error(), "0001_") {
				t.Fatalf("err = %v, want ErrSchemaBehind naming the missing migration", err)
			}
		})
		t.Run(s.name+"/newer than the binary", func(t *testing.T) {
			dsn := s.populated(t, m)
			ms, err := schema.Load(sqldb.Dialect(s.name))
			if err != nil {
				t.Fatal(err)
			}
			future := len(ms) + 1
			s.exec(t, dsn, "INSERT INTO schema_version (version, name) VALUES ("+itoa(future)+", 'from_the_future.sql')")
			_, err = OpenReader(ctx, dsn, nil)
			if !errors.Is(err, ErrSchemaAhead) || !strings.Contains(err.Error(), "version "+itoa(future)) {
				t.Fatalf("reader: err = %v, want ErrSchemaAhead naming version %d", err, future)
			}
			if _, err := Open(ctx, dsn, nil); !errors.Is(err, ErrSchemaAhead) {
				t.Fatalf("writer: err = %v, want ErrSchemaAhead", err)
			}
		})
		t.Run(s.name+"/current", func(t *testing.T) {
			dsn := s.populated(t, m)
			writer, err := Open(ctx, dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := dump(t, writer)
			writer.Close()

			check := s.guard(t, dsn)
			if s.name == "postgres" {
				// The guard holds: the writer's migration step is DDL.
				if db, err := Open(ctx, dsn, nil); err == nil || !strings.Contains(err.Error(), "DDL forbidden") {
					if db != nil {
						db.Close()
					}
					t.Fatalf("writer open under the DDL guard: %v", err)
				}
			}
			db, err := OpenReader(ctx, dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := dump(t, db); got != want {
				t.Errorf("reader's dump differs from the writer's:\n%s\n---\n%s", got, want)
			}
			page, err := db.Txs(ctx, TxFilter{Account: acct(1)}, Page{Limit: 5, Desc: true, CountTotal: true})
			if wantSeq, total := m.want(TxFilter{Account: acct(1)}, Page{Limit: 5, Desc: true, CountTotal: true}); err != nil ||
				page.Total != total || len(page.Txs) != len(wantSeq) {
				t.Errorf("reader Txs: %+v %v", page, err)
			}
			if err := db.WriteBlocks(ctx, buildModel(11).bundles[10:]); !errors.Is(err, ErrReadOnly) {
				t.Errorf("WriteBlocks through a reader: %v, want ErrReadOnly", err)
			}
			// The connections themselves refuse to write.
			if err := drain(db.be.Reader().Query(ctx, "DELETE FROM indexed_height")); err == nil {
				t.Error("a DELETE through the reader's connections succeeded")
			}
			db.Close()
			check(t)
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// drain runs a query to its end and returns its first error.
func drain(r sqldb.Rows, err error) error {
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
	}
	return r.Err()
}

// TestOpenOldLayout: a store laid out by the code before the SQL layer moved to sqldb — its
// schema_version table created by that code's own statement, every migration applied and
// recorded by hand — opens as current: the reader accepts it, the writer applies nothing.
func TestOpenOldLayout(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "old.db")
			if name == "postgres" {
				dsn = testutil.PostgresDSN(t)
			}
			// The old migrate's statements, verbatim.
			create := []string{"CREATE TABLE IF NOT EXISTS schema_version ( -- migrations applied to this database\n" +
				"  version INTEGER PRIMARY KEY, -- number of the migration file\n" +
				"  name    TEXT NOT NULL        -- its file name\n)"}
			if name == "postgres" {
				create = append(create, "COMMENT ON TABLE schema_version IS 'migrations applied to this database'")
			}
			applied := sqldbtest.LayOut(t, dsn, schema, create)
			// The numbers stores were created with: a renumbered file would be applied twice.
			ms, err := schema.Load(sqldb.Dialect(name))
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []string{"0001_init.sql", "0002_nft.sql", "0003_evm.sql", "0004_richlist.sql",
				"0005_nft_rank.sql", "0006_richlist_rank.sql", "0007_nft_owner_collection.sql", "0008_richlist_account.sql"} {
				if i >= len(ms) || ms[i].Name != want || ms[i].Version != i+1 {
					t.Fatalf("migration %d is %s, want %s: numbers of existing stores must stay", i+1, ms[min(i, len(ms)-1)].Name, want)
				}
			}
			r, err := OpenReader(ctx, dsn, nil)
			if err != nil {
				t.Fatalf("reader on the old layout: %v", err)
			}
			r.Close()
			w, err := Open(ctx, dsn, nil)
			if err != nil {
				t.Fatalf("writer on the old layout: %v", err)
			}
			defer w.Close()
			var n int
			if err := queryRow(ctx, w.be.Reader(), "SELECT COUNT(*) FROM schema_version", nil, &n); err != nil || n != applied || n < 7 {
				t.Fatalf("%d versions recorded (%v), want the %d the old code wrote", n, err, applied)
			}
			if h, err := w.IndexedHeight(ctx); err != nil || h != 0 {
				t.Fatalf("indexed height %d %v", h, err)
			}
		})
	}
}
