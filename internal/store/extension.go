package store

import (
	"context"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// ExtensionRows are one ingest extension's rows for one height, carried in
// BlockBundle.Extensions and written by the extension's own writer inside the WriteBlocks
// transaction: the bundle and WriteBlocks know an extension only through this interface, its
// tables and statements live in its own file (nftwrite.go for NFTRows, richlist.go for
// RichListChanges, transfer.go for TransferRows).
//
// The methods are unexported: a writer runs statements on the store's transaction, so every
// kind of rows is declared in this package.
type ExtensionRows interface {
	// writerName keys the writer: the rows of one kind across a batch share one writer.
	writerName() string
	// newWriter starts the writer of this kind of rows for one WriteBlocks transaction.
	newWriter() extensionWriter
	// count is the number of rows (the statistics keeper's count).
	count() int
}

// extensionWriter writes one kind of extension rows of one batch.
type extensionWriter interface {
	// add takes the rows of one bundle; firstSeq is the sequence of the bundle's first tx.
	add(b *BlockBundle, rows ExtensionRows, firstSeq int64)
	// write stores what add took, in the transaction; forUpdate is the suffix that row-locks
	// a read (sqldb.Backend.ForUpdate), for a writer that continues a state row of its own.
	write(ctx context.Context, tx sqldb.Tx, forUpdate string) error
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
	var order []extensionWriter
	writers := map[string]extensionWriter{}
	first := seq0 + 1
	for i := range bundles {
		b := &bundles[i]
		for _, r := range b.Extensions {
			w, ok := writers[r.writerName()]
			if !ok {
				w = r.newWriter()
				writers[r.writerName()] = w
				order = append(order, w)
			}
			w.add(b, r, first)
		}
		first += int64(len(b.Txs))
	}
	for _, w := range order {
		if err := w.write(ctx, tx, forUpdate); err != nil {
			return err
		}
	}
	return nil
}
