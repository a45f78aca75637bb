package storetest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// EVMOptions shapes the data FillEVM writes.
type EVMOptions struct {
	TxsPerBlock int  // default 10
	Accounts    int  // senders and recipients are Account(i % Accounts), default 1000
	Internal    bool // also one internal tx (a CALL frame) per EVM tx, through WriteInternalTxs
}

// EVMWriter is what FillEVM writes through: blocks, and internal txs when asked.
type EVMWriter interface {
	store.Writer
	WriteInternalTxs(ctx context.Context, blocks []store.InternalBlock) error
}

// EVMContract is the i-th of the ten token contracts FillEVM's txs call (20 bytes).
func EVMContract(i int) []byte { return sha(fmt.Sprintf("rollgate-synthetic-contract-%d", i%10))[:20] }

// EVMTxHash is the hash of FillEVM's EVM tx with sequence seq.
func EVMTxHash(seq int64) []byte { return sha(fmt.Sprintf("evm-tx-%d", seq)) }

// FillEVM appends blocks after the store's indexed height holding n EVM txs in all (receipts
// shaped like eth_getBlockReceipts', about 1.1 kB each with the logs bloom): EVM tx s (counted
// from 1 over everything FillEVM wrote, i.e. the stored EVM sequence) is sent by account
// s%Accounts to one of ten token contracts, with a Transfer log to account (s*7+1)%Accounts.
// Deterministic; for `rollgate bench api` on the EVM routes.
func FillEVM(ctx context.Context, w EVMWriter, first int64, n int, o EVMOptions) error {
	if o.TxsPerBlock <= 0 {
		o.TxsPerBlock = 10
	}
	if o.Accounts <= 0 {
		o.Accounts = 1000
	}
	chain := chainID(ctx, w)
	h, err := w.IndexedHeight(ctx)
	if err != nil {
		return err
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	seq := first
	var batch []store.BlockBundle
	var internal []store.InternalBlock
	for written := 0; written < n; {
		h++
		bt := t0.Add(time.Duration(h) * 500 * time.Millisecond)
		b := store.BlockBundle{Block: store.Block{ChainID: chain, Height: h, Hash: sha(fmt.Sprintf("evm-block-%d", h)), Time: bt, TotalFee: json.RawMessage(`[]`)}}
		ib := store.InternalBlock{Height: h}
		var txs store.EVMRows
		for i := 0; i < o.TxsPerBlock && written < n; i++ {
			seq++
			written++
			from, to := Account(int(seq%int64(o.Accounts))), Account(int((seq*7+1)%int64(o.Accounts)))
			contract := EVMContract(int(seq))
			hash := EVMTxHash(seq)
			txs = append(txs, store.EVMTx{Hash: hash, Index: i, Signer: from,
				Accounts: []store.TxAccount{{Addr: from, Signer: true}, {Addr: contract}, {Addr: to}},
				JSON:     evmReceiptJSON(hash, b.Block.Hash, h, i, from, to, contract)})
			if o.Internal {
				ib.Txs = append(ib.Txs, store.InternalTx{Hash: hash, From: from, To: contract,
					JSON: json.RawMessage(fmt.Sprintf(`{"height":"%d","hash":"0x%x","index":0,"parent_index":-1,"type":"CALL","from":"0x%x","to":"0x%x","input":"0xa9059cbb","output":"0x","value":"0x0","gas":"0x%x","gas_used":"0x%x"}`,
						h, hash, from, contract, 60000+seq%1000, 30000+seq%700))})
			}
		}
		b.Extensions = append(b.Extensions, txs)
		batch = append(batch, b)
		internal = append(internal, ib)
		if len(batch) == 200 || written == n {
			if err := w.WriteBlocks(ctx, batch); err != nil {
				return fmt.Errorf("fill EVM at height %d: %w", h, err)
			}
			if o.Internal {
				if err := w.WriteInternalTxs(ctx, internal); err != nil {
					return fmt.Errorf("fill internal txs at height %d: %w", h, err)
				}
			}
			batch, internal = batch[:0], internal[:0]
		}
	}
	return nil
}

// evmReceiptJSON renders a receipt as the API serves EVM txs (camelCase, hex quantities).
func evmReceiptJSON(hash, blockHash []byte, h int64, index int, from, to, contract []byte) json.RawMessage {
	word := func(b []byte) string { return "0x" + strings.Repeat("0", 64-2*len(b)) + hex.EncodeToString(b) }
	return json.RawMessage(fmt.Sprintf(`{"blockHash":"0x%x","blockNumber":"0x%x","contractAddress":null,"cumulativeGasUsed":"0x%x",`+
		`"effectiveGasPrice":"0x0","from":"0x%x","gasUsed":"0xc350","logs":[{"address":"0x%x","topics":["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef","%s","%s"],`+
		`"data":"%s","blockNumber":"0x%x","transactionHash":"0x%x","transactionIndex":"0x%x","blockHash":"0x%x","logIndex":"0x%x","removed":false}],`+
		`"logsBloom":"0x%s","status":"0x1","to":"0x%x","transactionHash":"0x%x","transactionIndex":"0x%x","type":"0x2"}`,
		blockHash, h, 50000*(index+1), from, contract, word(from), word(to), word([]byte{byte(h), byte(index), 1}), h, hash, index, blockHash, index,
		strings.Repeat("0", 512), contract, hash, index))
}
