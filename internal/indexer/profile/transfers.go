package profile

import (
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
)

// TransferVM is kind k's reading of the token movements its VM reports itself: what the
// transfers extension runs in ingestion, for a backfill from stored txs
// (ingest.BackfillReading).
func TransferVM(k vmkind.Kind) ingest.TransferVM { return transferVMs[k]() }
