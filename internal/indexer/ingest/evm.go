package ingest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/store"
)

// EVMSource is an EVM chain's Ethereum JSON-RPC as ingestion needs it.
type EVMSource interface {
	// BlockReceipts is eth_getBlockReceipts, each receipt verbatim; a height the node does not
	// have yet wraps ErrFutureHeight.
	BlockReceipts(ctx context.Context, height int64) ([]json.RawMessage, error)
	// TraceBlock is debug_traceBlockByNumber with callTracer, the result verbatim.
	TraceBlock(ctx context.Context, height int64) (json.RawMessage, error)
}

// evmClient adapts evmrpc.Client to EVMSource.
type evmClient struct{ c *evmrpc.Client }

// NewEVMSource returns the production EVMSource over the project's JSON-RPC client.
func NewEVMSource(c *evmrpc.Client) EVMSource { return evmClient{c} }

func (e evmClient) BlockReceipts(ctx context.Context, h int64) ([]json.RawMessage, error) {
	var rs []json.RawMessage
	err := e.c.Call(ctx, "eth_getBlockReceipts", []any{evmrpc.BlockTag(h)}, &rs)
	if errors.Is(err, evmrpc.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", ErrFutureHeight, err)
	}
	return rs, err
}

func (e evmClient) TraceBlock(ctx context.Context, h int64) (json.RawMessage, error) {
	raw, err := e.c.TraceBlockByNumber(ctx, h, "callTracer")
	if evmrpc.IsFutureBlock(err) || errors.Is(err, evmrpc.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", ErrFutureHeight, err)
	}
	return raw, err
}

// evmReceipt is the EvmTx object of the API: the receipt fields the peer keeps, in its order
// (docs/contract/indexer-peer.md §2.4). `to` is a plain string, so a contract creation's null `to` becomes "", as at
// the peer.
type evmReceipt struct {
	BlockHash         string   `json:"blockHash"`
	BlockNumber       string   `json:"blockNumber"`
	ContractAddress   *string  `json:"contractAddress"`
	CumulativeGasUsed string   `json:"cumulativeGasUsed"`
	EffectiveGasPrice string   `json:"effectiveGasPrice"`
	From              string   `json:"from"`
	GasUsed           string   `json:"gasUsed"`
	Logs              []evmLog `json:"logs"`
	LogsBloom         string   `json:"logsBloom"`
	Status            string   `json:"status"`
	To                string   `json:"to"`
	TransactionHash   string   `json:"transactionHash"`
	TransactionIndex  string   `json:"transactionIndex"`
	Type              string   `json:"type"`
}

type evmLog struct {
	Address          string   `json:"address"`
	Topics           []string `json:"topics"`
	Data             string   `json:"data"`
	BlockNumber      string   `json:"blockNumber"`
	TransactionHash  string   `json:"transactionHash"`
	TransactionIndex string   `json:"transactionIndex"`
	BlockHash        string   `json:"blockHash"`
	LogIndex         string   `json:"logIndex"`
	Removed          bool     `json:"removed"`
}

// BuildEVMTxs turns a block's receipts into the store's EVM txs: the API object, the signer
// (the receipt's from) and the accounts the peer links (from, to, created contract, every log
// address and every address-shaped topic after the first).
func (x *AccountExtractor) BuildEVMTxs(height int64, receipts []json.RawMessage) ([]store.EVMTx, error) {
	out := make([]store.EVMTx, 0, len(receipts))
	for i, raw := range receipts {
		var r evmReceipt
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("height %d: %w: receipt %d: %w", height, ErrInvalidData, i, err)
		}
		hash, err := hex.DecodeString(strings.TrimPrefix(r.TransactionHash, "0x"))
		if err != nil || len(hash) != 32 {
			return nil, fmt.Errorf("height %d: %w: receipt %d: transactionHash %q", height, ErrInvalidData, i, r.TransactionHash)
		}
		idx, err := strconv.ParseUint(strings.TrimPrefix(r.TransactionIndex, "0x"), 16, 32)
		if err != nil {
			return nil, fmt.Errorf("height %d: %w: receipt %d: transactionIndex %q", height, ErrInvalidData, i, r.TransactionIndex)
		}
		if r.Logs == nil {
			r.Logs = []evmLog{}
		}
		for k := range r.Logs {
			if r.Logs[k].Topics == nil {
				r.Logs[k].Topics = []string{}
			}
		}
		var t store.EVMTx
		t.Hash, t.Index = hash, int(idx)
		seen := map[string]bool{}
		add := func(s string) []byte {
			if s == "" {
				return nil
			}
			a, ok := x.ParseAddress(s)
			if !ok {
				return nil
			}
			if !seen[string(a)] {
				seen[string(a)] = true
				t.Accounts = append(t.Accounts, store.TxAccount{Addr: a})
			}
			return a
		}
		t.Signer = add(r.From)
		add(r.To)
		if r.ContractAddress != nil {
			add(*r.ContractAddress)
		}
		for _, l := range r.Logs {
			add(l.Address)
			for k, topic := range l.Topics {
				if k > 0 && strings.HasPrefix(topic, zeroTopicPrefix) {
					add(topic)
				}
			}
		}
		if t.JSON, err = json.Marshal(r); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// evmOf returns the source's JSON-RPC side on EVM chains (VMType "evm"), else nil.
func evmOf(cfg Config, src Source) EVMSource {
	if cfg.VMType != "evm" {
		return nil
	}
	if s, ok := src.(interface{ EVM() EVMSource }); ok {
		return s.EVM()
	}
	return nil
}
