package testutil

import (
	"database/sql"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // registers the "sqlite" database/sql driver
)

// OpenRawStore opens the store at dsn (sqlite:<path> or postgres://…) through database/sql, for
// the checks that ask its tables themselves: what the API does not serve, or the row as it is
// now rather than through store.DB's caches. SQLite connections are read-only and wait up to a
// second for a writer's lock instead of failing.
func OpenRawStore(dsn string) (*sql.DB, error) {
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		return sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)&_pragma=busy_timeout(1000)")
	}
	return sql.Open("pgx", dsn)
}
