package store

import "github.com/rollgate/rollgate/internal/sqldb"

// The schema errors are the SQL layer's; the store names them for its callers.
var (
	// ErrSchemaBehind: the store lacks migrations this binary has; `rollgate migrate` (or
	// the writer, which migrates when it opens the store) applies them.
	ErrSchemaBehind = sqldb.ErrSchemaBehind
	// ErrSchemaAhead: a newer binary migrated the store; this one does not know its tables.
	ErrSchemaAhead = sqldb.ErrSchemaAhead
	// ErrReadOnly is returned by writes through a store opened with OpenReader.
	ErrReadOnly = sqldb.ErrReadOnly
)
