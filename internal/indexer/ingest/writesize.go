package ingest

import "github.com/rollgate/rollgate/internal/sqldb"

// writeSize is how many heights a writer puts in its next transaction when faults repeat
// (sqldb.WriteSize, the halving policy shared with the router's tracker). Every writer here
// takes consecutive heights in order and records its height in the same transaction, so two
// halves commit exactly what the whole would have.
type writeSize = sqldb.WriteSize
