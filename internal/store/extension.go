package store

import (
	"context"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// ExtensionRows are one ingest extension's rows for one height, carried in
// BlockBundle.Extensions and written by the extension's own writer inside the WriteBlocks
// transaction: the bundle and WriteBlocks know an extension only through this interface. The
// store's own extensions keep their tables and statements in this package (nftwrite.go for
// NFTRows, richlist.go for RichListChanges, transfer.go for TransferRows); an extension that
// owns its tables (ExtensionTable) declares its rows and writer beside its ingest side, and
// its writer runs its statements on the sqldb.Tx it is handed.
type ExtensionRows interface {
	// WriterName keys the writer: the rows of one kind across a batch share one writer.
	WriterName() string
	// NewWriter starts the writer of this kind of rows for one WriteBlocks transaction.
	NewWriter() ExtensionWriter
	// Count is the number of rows (the statistics keeper's count).
	Count() int
}

// ExtensionWriter writes one kind of extension rows of one batch.
type ExtensionWriter interface {
	// Add takes the rows of one bundle; firstSeq is the sequence of the bundle's first tx.
	Add(b *BlockBundle, rows ExtensionRows, firstSeq int64)
	// Write stores what Add took, in the transaction; forUpdate is the suffix that row-locks
	// a read (sqldb.Backend.ForUpdate), for a writer that continues a state row of its own.
	Write(ctx context.Context, tx sqldb.Tx, forUpdate string) error
}

// RowsOf returns the first rows of type T among b's extension rows (for an extension that
// amends its rows before the write, as the rich list's corrections do); ok is false when b
// carries none.
func RowsOf[T ExtensionRows](b *BlockBundle) (rows T, ok bool) {
	for _, r := range b.Extensions {
		if t, is := r.(T); is {
			return t, true
		}
	}
	return rows, false
}

// DropRows removes b's extension rows of type T: the bundle goes in without them. The list
// is copied, not edited in place, so a copy of the bundle keeps its rows.
func DropRows[T ExtensionRows](b *BlockBundle) {
	var kept []ExtensionRows
	for _, r := range b.Extensions {
		if _, is := r.(T); !is {
			kept = append(kept, r)
		}
	}
	b.Extensions = kept
}

// writeExtensions hands every bundle's extension rows to their writers, in bundle order, then
// lets each writer store its batch; seq0 is the last tx sequence before the first bundle.
func writeExtensions(ctx context.Context, tx sqldb.Tx, forUpdate string, bundles []BlockBundle, seq0 int64) error {
	var order []ExtensionWriter
	writers := map[string]ExtensionWriter{}
	first := seq0 + 1
	for i := range bundles {
		b := &bundles[i]
		for _, r := range b.Extensions {
			w, ok := writers[r.WriterName()]
			if !ok {
				w = r.NewWriter()
				writers[r.WriterName()] = w
				order = append(order, w)
			}
			w.Add(b, r, first)
		}
		first += int64(len(b.Txs))
	}
	for _, w := range order {
		if err := w.Write(ctx, tx, forUpdate); err != nil {
			return err
		}
	}
	return nil
}
