package store

import "github.com/rollgate/rollgate/internal/sqldb"

// IsTransient reports whether err is a database failure that a later attempt of the same
// work, on a fresh connection, can be expected to get past (sqldb.IsTransient). WriteBlocks
// is atomic, so a batch that failed with a transient error can be written again as it is.
func IsTransient(err error) bool { return sqldb.IsTransient(err) }

// SessionLost reports whether err means an established session was lost rather than a server
// that cannot be reached (sqldb.SessionLost).
func SessionLost(err error) bool { return sqldb.SessionLost(err) }
