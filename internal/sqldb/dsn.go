package sqldb

import (
	"fmt"
	"net/url"
	"strings"
)

// Dialect names a backend; it is also the folder of its migrations.
type Dialect string

// The two backends.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Target is a parsed DSN.
type Target struct {
	Dialect Dialect
	// Path is the SQLite file.
	Path string
	// URL is the PostgreSQL connection string as given.
	URL string
}

// ParseDSN reads "sqlite:<path>" (also "sqlite://<path>") or "postgres://…" /
// "postgresql://…". Its errors quote the DSN redacted.
func ParseDSN(dsn string) (Target, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
		if path == "" {
			return Target{}, fmt.Errorf("sqlite DSN without a path")
		}
		return Target{Dialect: SQLite, Path: path}, nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return Target{Dialect: Postgres, URL: dsn}, nil
	}
	return Target{}, fmt.Errorf("unsupported store DSN %q: want sqlite:<path> or postgres://…", Redact(dsn))
}

// Redact keeps credentials out of error messages and logs: the user information of a URL
// ("user:secret@" becomes "…@") and the value of a password parameter in its query.
func Redact(dsn string) string {
	out := dsn
	if i := strings.Index(out, "://"); i >= 0 {
		rest := out[i+3:]
		// The authority ends at the first '/', '?' or '#'; an '@' in it ends the user info.
		end := len(rest)
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			end = j
		}
		if j := strings.LastIndex(rest[:end], "@"); j >= 0 {
			out = out[:i+3] + "…" + rest[j:]
		}
	}
	q := strings.IndexByte(out, '?')
	if q < 0 {
		return out
	}
	params := strings.Split(out[q+1:], "&")
	for k, p := range params {
		name, _, ok := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); ok && err == nil && strings.EqualFold(n, "password") {
			params[k] = name + "=…"
		}
	}
	return out[:q+1] + strings.Join(params, "&")
}
