package store

import "context"

// NextTxSequence returns the sequence the next Cosmos tx will be given (1 on an empty store).
// On a store that pruned every tx it held, it is where the retained txs begin: the tx stream
// refuses an older resume point by it rather than skip the pruned ones in silence.
func (d *DB) NextTxSequence(ctx context.Context) (int64, error) {
	return readRetrying(ctx, d, func() (int64, error) {
		st, err := d.readerState(ctx, d.be.Reader())
		return st.lastSequence + 1, err
	})
}

// NextEVMTxSequence is NextTxSequence for EVM txs.
func (d *DB) NextEVMTxSequence(ctx context.Context) (int64, error) {
	return readRetrying(ctx, d, func() (int64, error) {
		var seq int64
		err := queryRow(ctx, d.be.Reader(), "SELECT last_sequence FROM evm_state WHERE id = 1", nil, &seq)
		return seq + 1, err
	})
}
