package ingest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/jsonx"
	"github.com/rollgate/rollgate/internal/store"
)

// evmBlockSource is the EVM source side that gives a block's txs with its receipts in one
// round trip. The production source has it; a source without it yields items without the
// explorer fields that only the block's txs carry.
type evmBlockSource interface {
	// BlockAndReceipts is eth_getBlockByNumber (full txs) and eth_getBlockReceipts of one
	// height, both verbatim; a height the node does not have yet wraps ErrFutureHeight.
	BlockAndReceipts(ctx context.Context, height int64) (block json.RawMessage, receipts []json.RawMessage, err error)
}

// BlockAndReceipts sends both calls as one JSON-RPC batch, so the txs cost no request beyond
// the receipts'. A node that refuses batches is asked twice.
func (e evmClient) BlockAndReceipts(ctx context.Context, h int64) (json.RawMessage, []json.RawMessage, error) {
	var blk json.RawMessage
	var rs []json.RawMessage
	reqs := []evmrpc.Request{
		{Method: "eth_getBlockByNumber", Params: []any{evmrpc.BlockTag(h), true}, Result: &blk},
		{Method: "eth_getBlockReceipts", Params: []any{evmrpc.BlockTag(h)}, Result: &rs},
	}
	err := e.c.Batch(ctx, reqs)
	var rpcErr *evmrpc.RPCError
	if errors.As(err, &rpcErr) {
		if err := e.c.Call(ctx, "eth_getBlockByNumber", reqs[0].Params, &blk); err != nil {
			reqs[0].Error = err
		}
		rs, err = e.BlockReceipts(ctx, h)
		if err != nil {
			return nil, nil, err
		}
		reqs[1].Error = nil
	} else if err != nil {
		return nil, nil, err
	}
	for _, r := range reqs {
		if errors.Is(r.Error, evmrpc.ErrNotFound) {
			return nil, nil, fmt.Errorf("%w: %w", ErrFutureHeight, r.Error)
		}
		if r.Error != nil {
			return nil, nil, r.Error
		}
	}
	return blk, rs, nil
}

// ethBlockTx is the part of an eth_getBlockByNumber tx object the explorer fields take, each
// string verbatim (hex quantities as the node renders them).
type ethBlockTx struct {
	Hash                 string  `json:"hash"`
	From                 string  `json:"from"`
	Input                string  `json:"input"`
	Nonce                string  `json:"nonce"`
	Gas                  string  `json:"gas"`
	GasPrice             string  `json:"gasPrice"`
	MaxFeePerGas         *string `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *string `json:"maxPriorityFeePerGas"`
	Value                string  `json:"value"`
}

// evmExplorer is the object of additive keys an EVM tx item carries after rollytics' receipt
// fields (store.EVMTx.Explorer). Celatone reads them today from three more JSON-RPC calls per
// row and shapes them as follows (alleslabs/celatone-frontend):
//
//   - value, input, nonce, gas, gasPrice, maxFeePerGas, maxPriorityFeePerGas: zRawTxJsonRpc in
//     src/lib/services/types/tx.ts parses them from eth_getTransactionByHash as hex strings
//     (zHex, then zHexBig); they are copied from the node's tx object verbatim, so a client
//     parses them exactly as it parses the node. The two EIP-1559 fees are omitted when the
//     node gives none (a legacy tx). `type` is already the receipt's.
//   - timestamp: useEvmTxs* in src/lib/services/evm-txs/index.ts attach the block's time to
//     each row as a Date; it is the block time in the indexer's own time format, the RFC 3339
//     of the Cosmos tx item's `timestamp` (parsed there with zUtcDate), so the EVM item and
//     the Cosmos item of one tx show the same string.
//   - tx_hash: the Cosmos tx that carried the EVM tx, as cosmos_cosmosTxHashByTxHash answers
//     it (getCosmosTxHashByEvmTxHash in src/lib/services/tx/jsonRpc.ts: lowercase hex, no 0x);
//     the indexer's tx routes take it as is. Omitted when the block holds no matching tx.
type evmExplorer struct {
	Timestamp            string  `json:"timestamp"`
	TxHash               string  `json:"tx_hash,omitempty"`
	Value                string  `json:"value,omitempty"`
	Input                string  `json:"input,omitempty"`
	Nonce                string  `json:"nonce,omitempty"`
	Gas                  string  `json:"gas,omitempty"`
	GasPrice             string  `json:"gasPrice,omitempty"`
	MaxFeePerGas         *string `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas *string `json:"maxPriorityFeePerGas,omitempty"`
}

// explorerFields fills each EVM tx's Explorer from what the block fetch already holds: the
// block's time, its eth tx objects (nil: the source gave none) and its Cosmos txs.
//
// The Cosmos tx of an EVM tx is found without asking the node. minievm gives every Cosmos tx
// it does not read as an Ethereum tx a stand-in whose from is the zero address and whose input
// is the Cosmos tx hash; a real Ethereum tx was sent as a Cosmos tx signed by its from at its
// nonce, and the ante handler's tx.acc_seq event ("<signer>/<sequence>") names that pair. Both
// are looked up among the block's txs, in block order.
func (x *AccountExtractor) explorerFields(blk *RawBlock, results []TxResult, cosmos []store.Tx, ethBlock json.RawMessage, txs []store.EVMTx) error {
	byHash := map[string]*ethBlockTx{}
	if len(ethBlock) > 0 {
		var b struct {
			Transactions []ethBlockTx `json:"transactions"`
		}
		if err := jsonx.Unmarshal(ethBlock, &b); err != nil {
			return fmt.Errorf("height %d: %w: eth block txs: %w", blk.Height, ErrInvalidData, err)
		}
		for i := range b.Transactions {
			byHash[strings.ToLower(b.Transactions[i].Hash)] = &b.Transactions[i]
		}
	}
	cosmosByHash := make(map[string]int, len(cosmos))
	bySignerSeq := map[string]int{}
	for i, c := range cosmos {
		cosmosByHash[hex.EncodeToString(c.Hash)] = i
		if i < len(results) && c.Signer != nil {
			if seq, ok := accSeq(results[i].Events); ok {
				k := signerSeqKey(c.Signer, seq)
				if _, dup := bySignerSeq[k]; !dup {
					bySignerSeq[k] = i
				}
			}
		}
	}
	ts := blk.Time.UTC().Format(time.RFC3339Nano)
	for i := range txs {
		e := evmExplorer{Timestamp: ts}
		if t := byHash["0x"+hex.EncodeToString(txs[i].Hash)]; t != nil {
			e.Value, e.Input, e.Nonce, e.Gas, e.GasPrice = t.Value, t.Input, t.Nonce, t.Gas, t.GasPrice
			e.MaxFeePerGas, e.MaxPriorityFeePerGas = t.MaxFeePerGas, t.MaxPriorityFeePerGas
			if k, ok := x.cosmosOf(t, cosmosByHash, bySignerSeq); ok {
				e.TxHash = hex.EncodeToString(cosmos[k].Hash)
			}
		}
		var err error
		if txs[i].Explorer, err = json.Marshal(e); err != nil {
			return err
		}
	}
	return nil
}

// cosmosOf is the index of the Cosmos tx that carried t (see explorerFields).
func (x *AccountExtractor) cosmosOf(t *ethBlockTx, byHash map[string]int, bySignerSeq map[string]int) (int, bool) {
	from, ok := x.ParseAddress(t.From)
	if !ok {
		return 0, false
	}
	if bytes.Equal(from, make([]byte, len(from))) {
		in := strings.TrimPrefix(strings.ToLower(t.Input), "0x")
		k, ok := byHash[in]
		return k, ok && len(in) == 64
	}
	nonce, err := strconv.ParseUint(strings.TrimPrefix(t.Nonce, "0x"), 16, 64)
	if err != nil {
		return 0, false
	}
	k, ok := bySignerSeq[signerSeqKey(from, nonce)]
	return k, ok
}

func signerSeqKey(signer []byte, seq uint64) string {
	return string(signer) + "/" + strconv.FormatUint(seq, 10)
}

// accSeq is the sequence of the ante handler's tx.acc_seq event, "<signer bech32>/<sequence>"
// (the first signer's).
func accSeq(events []Event) (uint64, bool) {
	for _, ev := range events {
		if ev.Type != "tx" {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key != "acc_seq" {
				continue
			}
			i := strings.LastIndexByte(a.Value, '/')
			if i < 0 {
				return 0, false
			}
			n, err := strconv.ParseUint(a.Value[i+1:], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
