package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// EVMTx is one EVM transaction receipt of a block (eth_getBlockReceipts), written with the
// block in the same database transaction.
type EVMTx struct {
	Hash     []byte          // transactionHash (32 bytes)
	Index    int             // transactionIndex
	Signer   []byte          // the receipt's from (20 bytes); nil when absent
	Accounts []TxAccount     // from, to, created contract, log addresses, address topics; deduplicated
	JSON     json.RawMessage // the API's EvmTx object (rollytics' receipt fields), stored once and served verbatim
	// Explorer is a JSON object of the additive keys the API appends to JSON (timestamp,
	// tx_hash, value, input, ...; see ingest's explorerFields); nil when none are known.
	Explorer json.RawMessage
}

// evmTxData is the select expression of an EVM tx item: rollytics' receipt object with the
// explorer keys appended inside its braces, so rollytics' keys keep their bytes and order.
// Both stores' substr and length count characters; data ends in '}' and explorer, a non-empty
// object, starts with '{'.
func evmTxData(t string) string {
	return "CASE WHEN " + t + "explorer IS NULL THEN " + t + "data ELSE substr(" + t + "data, 1, length(" + t + "data) - 1) || ',' || substr(" + t + "explorer, 2) END"
}

// EVMTxFilter narrows an EVM tx list; the zero value lists every EVM tx. Account and Height
// are not combined by the API.
type EVMTxFilter struct {
	Account    []byte // raw address bytes; nil means any account
	SignerOnly bool   // with Account: only txs whose receipt from is the account
	Height     int64  // 0 means any height
	// MinHeight and MaxHeight bound the heights, inclusive; 0 leaves that side open.
	MinHeight, MaxHeight int64
}

// EVMReader is the API side of the EVM tables.
type EVMReader interface {
	// EVMTx returns the EVM tx with that hash (the first if it occurs twice) or ErrNotFound.
	EVMTx(ctx context.Context, hash []byte) (TxRecord, error)
	// EVMTxs returns a page of EVM txs ordered by their sequence; totals are exact.
	EVMTxs(ctx context.Context, f EVMTxFilter, p Page) (TxPage, error)
	// InternalTxHeight is the last height whose internal txs are stored (0: none yet).
	InternalTxHeight(ctx context.Context) (int64, error)
	// InternalTxs returns a page of internal txs ordered by their sequence; totals are exact.
	InternalTxs(ctx context.Context, f InternalTxFilter, p Page) (TxPage, error)
}

var _ EVMReader = (*DB)(nil)

// evmAccountDict is account_dict seen through its EVM counters (migration 0003).
var evmAccountDict = dict{"account_dict", "account", "evm_tx_count, evm_signer_count", "evm_tx_count = v.column2, evm_signer_count = v.column3"}

// EVMRows are a block's EVM txs in transactionIndex order (EVM chains), the EVM tx
// extension's rows in BlockBundle.Extensions: evmWriter stores them in the WriteBlocks
// transaction, continuing the EVM sequence and the accounts' ranks.
type EVMRows []EVMTx

func (EVMRows) WriterName() string         { return "evm-txs" }
func (EVMRows) NewWriter() ExtensionWriter { return &evmWriter{} }
func (r EVMRows) Count() int               { return len(r) }

// EVMTxsOf is the bundle's EVM txs, in order (nil: none).
func EVMTxsOf(b *BlockBundle) []EVMTx {
	var out []EVMTx
	for _, r := range b.Extensions {
		if e, ok := r.(EVMRows); ok {
			out = append(out, e...)
		}
	}
	return out
}

// evmWriter is the writer of one batch's EVMRows.
type evmWriter struct {
	heights []int64
	rows    []EVMRows
}

func (w *evmWriter) Add(b *BlockBundle, rows ExtensionRows, _ int64) {
	w.heights = append(w.heights, b.Block.Height)
	w.rows = append(w.rows, rows.(EVMRows))
}

func (w *evmWriter) Write(ctx context.Context, tx sqldb.Tx, _ string) error {
	var keys [][]byte
	seen := map[string]bool{}
	n := 0
	for _, rows := range w.rows {
		for _, t := range rows {
			n++
			if t.Signer != nil && !seen[string(t.Signer)] {
				seen[string(t.Signer)] = true
				keys = append(keys, t.Signer)
			}
			for _, a := range t.Accounts {
				if !seen[string(a.Addr)] {
					seen[string(a.Addr)] = true
					keys = append(keys, a.Addr)
				}
			}
		}
	}
	if n == 0 {
		return nil
	}
	var seq int64
	if err := queryRow(ctx, tx, "SELECT last_sequence FROM evm_state WHERE id = 1", nil, &seq); err != nil {
		return fmt.Errorf("read evm_state: %w", err)
	}
	accs := map[string]*dictEntry{}
	if err := resolveDict(ctx, tx, evmAccountDict, keys, func(k []byte) string { return string(k) }, accs); err != nil {
		return err
	}
	txRows := make([][]any, 0, n)
	var accRows [][]any
	for i, rows := range w.rows {
		for _, t := range rows {
			seq++
			var signerID any
			if t.Signer != nil {
				signerID = accs[string(t.Signer)].id
			}
			var explorer any
			if len(t.Explorer) > 2 {
				explorer = string(t.Explorer)
			}
			txRows = append(txRows, []any{seq, nonNil(t.Hash), w.heights[i], t.Index, signerID, string(t.JSON), explorer})
			accRows = appendAccountEdges(accRows, accs, seq, t.Signer, t.Accounts)
		}
	}
	if err := tx.InsertRows(ctx, "evm_tx", []string{"sequence", "hash", "height", "tx_index", "signer_id", "data", "explorer"}, txRows); err != nil {
		return fmt.Errorf("insert evm_tx: %w", err)
	}
	if err := tx.InsertRows(ctx, "evm_tx_accounts", []string{"account_id", "sequence", "signer", "ord", "signer_ord"}, accRows); err != nil {
		return fmt.Errorf("insert evm_tx_accounts: %w", err)
	}
	if err := updateCounts(ctx, tx, evmAccountDict, accs); err != nil {
		return err
	}
	if err := tx.Exec(ctx, "UPDATE evm_state SET last_sequence = ? WHERE id = 1", seq); err != nil {
		return fmt.Errorf("update evm_state: %w", err)
	}
	return nil
}

// EVMTx implements EVMReader.
func (d *DB) EVMTx(ctx context.Context, hash []byte) (TxRecord, error) {
	return d.txByHash(ctx, "SELECT sequence, height, "+evmTxData("")+" FROM evm_tx WHERE hash = ?", "evm tx by hash", hash)
}

// EVMTxs implements EVMReader: all txs and one height are dense sequence ranges, one account
// is a rank range on its edge rows (see seqList).
func (d *DB) EVMTxs(ctx context.Context, f EVMTxFilter, p Page) (TxPage, error) {
	c := d.be.Reader()
	l := seqList{table: "evm_tx", data: evmTxData}
	switch {
	case f.Account != nil:
		var id, n, signers int64
		err := queryRow(ctx, c, "SELECT id, evm_tx_count, evm_signer_count FROM account_dict WHERE account = ?", []any{nonNil(f.Account)}, &id, &n, &signers)
		if errors.Is(err, ErrNotFound) {
			return TxPage{Txs: []TxRecord{}}, nil
		}
		if err != nil {
			return TxPage{}, fmt.Errorf("evm txs: account: %w", err)
		}
		l.edge, l.key, l.ord, l.n = "evm_tx_accounts", "account_id", "ord", n
		l.keyVal = id
		if f.SignerOnly {
			l.ord, l.n, l.cond = "signer_ord", signers, " AND e.signer"
		}
	case f.Height != 0:
		if err := l.rangeOf(ctx, c, "height", f.Height); err != nil {
			return TxPage{}, fmt.Errorf("evm txs: %w", err)
		}
	default:
		l.lo = 1
		if err := queryRow(ctx, c, "SELECT last_sequence FROM evm_state WHERE id = 1", nil, &l.hi); err != nil {
			return TxPage{}, fmt.Errorf("evm txs: %w", err)
		}
	}
	if f.MinHeight > 0 || f.MaxHeight > 0 {
		if err := l.heights(ctx, c, f.MinHeight, f.MaxHeight); err != nil {
			return TxPage{}, fmt.Errorf("evm txs: %w", err)
		}
	}
	return d.unpinned(l.page(ctx, c, p))
}

func init() {
	dumpTables = append(dumpTables,
		dumpTable{"account_dict", "id", []string{"id", "evm_tx_count", "evm_signer_count"}, "iii"},
		dumpTable{"evm_state", "id", []string{"id", "last_sequence", "internal_height", "internal_last_sequence"}, "iiii"},
		dumpTable{"evm_tx", "sequence", []string{"sequence", "hash", "height", "tx_index", "signer_id", "data", "explorer"}, "ibiiIsS"},
		dumpTable{"evm_tx_accounts", "account_id, sequence", []string{"account_id", "sequence", "signer", "ord", "signer_ord"}, "iiBiI"},
		dumpTable{"evm_internal_tx", "sequence", []string{"sequence", "height", "hash", "data"}, "iibs"},
		dumpTable{"evm_internal_account", "account", []string{"account", "tx_count"}, "bi"},
		dumpTable{"evm_internal_tx_accounts", "account, sequence", []string{"account", "sequence", "ord"}, "bii"},
	)
}
