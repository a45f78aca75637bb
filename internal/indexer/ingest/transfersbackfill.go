package ingest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rollgate/rollgate/internal/store"
)

// BackfillReading is the transfers extension's reading of one height from the txs a store
// holds (store.BackfillRead): each stored tx carries its events, so a store indexed before the
// transfers index gains it without the chain. vm is the kind's reading (profile.TransferVM),
// prefix the chain's bech32 prefix. The rows are those ingestion writes for the height,
// named alike (name), except a Move asset that no bank movement of its block names: move/<hex>
// both ways, since Move's reading needs no source.
func BackfillReading(vm TransferVM, prefix string) store.BackfillRead {
	t := &transfers{vm: vm, x: NewAccountExtractor(prefix)}
	return func(ctx context.Context, height int64, txs []store.BackfillTx) (store.TransferRows, error) {
		var rows store.TransferRows
		for _, tx := range txs {
			var body struct {
				Events []Event `json:"events"`
			}
			if err := json.Unmarshal(tx.JSON, &body); err != nil {
				return nil, fmt.Errorf("stored tx %d: %w", tx.Index, err)
			}
			got, err := t.txTransfers(ctx, tx.Index, body.Events)
			if err != nil {
				return nil, fmt.Errorf("transfers of tx %d: %w", tx.Index, err)
			}
			rows = append(rows, got...)
		}
		t.name(rows)
		return rows, nil
	}
}

// BackfillTransfers runs the backfill of db's transfers index to its end in batches of batch
// heights, calling progress after each committed batch. Stopped (ctx, an error), it resumes
// where the last committed batch left off on the next call.
func BackfillTransfers(ctx context.Context, db *store.DB, read store.BackfillRead, batch int64, progress func(store.TransferBackfill)) (store.TransferBackfill, error) {
	for {
		if err := ctx.Err(); err != nil {
			return store.TransferBackfill{}, err
		}
		st, err := db.BackfillTransfers(ctx, batch, read)
		if err != nil {
			return st, err
		}
		if progress != nil {
			progress(st)
		}
		if st.Done() {
			return st, nil
		}
	}
}
