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
	"github.com/rollgate/rollgate/internal/jsonx"
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

// evmReceipt is the EvmTx object of the API: the receipt fields rollytics keeps, in its order
// (docs/contract/indexer-rollytics.md §2.4). `to` is a plain string, so a contract creation's null `to` becomes "", as in
// rollytics.
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
// (the receipt's from) and the accounts rollytics links (from, to, created contract, every log
// address and every address-shaped topic after the first).
func (x *AccountExtractor) BuildEVMTxs(height int64, receipts []json.RawMessage) ([]store.EVMTx, error) {
	out := make([]store.EVMTx, 0, len(receipts))
	for i, raw := range receipts {
		var r evmReceipt
		if err := jsonx.Unmarshal(raw, &r); err != nil {
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

// evmOf returns the source's JSON-RPC side, or nil when it has none.
func evmOf(src Source) EVMSource {
	if s, ok := src.(interface{ EVM() EVMSource }); ok {
		return s.EVM()
	}
	return nil
}

// EVMTxs is the EVM tx extension: each block's receipts (eth_getBlockReceipts) become its EVM
// txs and their account links, written with the block; the block's tx objects
// (eth_getBlockByNumber, in the same batch) and its Cosmos txs give each the explorer fields.
func EVMTxs() Extension { return &evmTxs{} }

type evmTxs struct {
	noHooks
	p   *Pipeline
	evm EVMSource
}

func (e *evmTxs) Name() string  { return "evm-txs" }
func (e *evmTxs) Needs() string { return "a source with the chain's Ethereum JSON-RPC (EVM())" }

func (e *evmTxs) bind(p *Pipeline) error {
	e.p = p
	if e.evm = evmOf(p.src); e.evm == nil {
		return errMissing(e)
	}
	return nil
}

func (e *evmTxs) extract(ctx context.Context, blk *RawBlock, results []TxResult, b *store.BlockBundle) error {
	if len(blk.Txs) == 0 {
		// EVM txs are Cosmos txs, so a block without txs has no receipts to ask for.
		return nil
	}
	var ethBlock json.RawMessage
	var receipts []json.RawMessage
	var err error
	if bs, ok := e.evm.(evmBlockSource); ok {
		ethBlock, receipts, err = bs.BlockAndReceipts(ctx, blk.Height)
	} else {
		receipts, err = e.evm.BlockReceipts(ctx, blk.Height)
	}
	if err != nil {
		return err
	}
	x := e.p.builder.extractor
	txs, err := x.BuildEVMTxs(blk.Height, receipts)
	if err != nil {
		return err
	}
	if err := x.explorerFields(blk, results, b.Txs, ethBlock, txs); err != nil {
		return err
	}
	if len(txs) > 0 {
		b.Extensions = append(b.Extensions, store.EVMRows(txs))
	}
	return nil
}

// InternalTxs is the internal-tx extension: its follower traces the blocks holding EVM txs
// (debug_traceBlockByNumber) behind the block writer and reports internal_tx_height.
func InternalTxs(cfg InternalConfig) Extension { return &internalTxs{cfg: cfg} }

type internalTxs struct {
	noHooks
	cfg    InternalConfig
	f      *InternalFollower
	maxLag int64
}

func (e *internalTxs) Name() string { return "internal-txs" }
func (e *internalTxs) Needs() string {
	return "a source with the chain's Ethereum JSON-RPC (EVM()) and a store that keeps internal txs"
}

func (e *internalTxs) bind(p *Pipeline) error {
	es := evmOf(p.src)
	st, ok := p.w.(InternalStore)
	if es == nil || !ok {
		return errMissing(e)
	}
	cfg := e.cfg
	if cfg.AccountPrefix == "" {
		cfg.AccountPrefix = p.cfg.AccountPrefix
	}
	if cfg.CoreBehind == nil {
		cfg.CoreBehind = func() int64 { return p.target.Load() - p.indexed.Load() }
	}
	if cfg.YieldAbove <= 0 {
		cfg.YieldAbove = p.cfg.ReadyMaxLag
	}
	e.f = NewInternalFollower(cfg, es, st, p.log.With("component", "internal-txs"))
	e.maxLag = p.cfg.ReadyMaxLag
	return nil
}

// follow: the follower keeps its own stop height (InternalConfig.StopAtHeight), so Run does
// not wait for it at the pipeline's.
func (e *internalTxs) follow() (func(context.Context) error, bool) { return e.f.Run, false }

func (e *internalTxs) ready(int64) error { return e.f.Ready(e.maxLag) }

// reset forgets the follower's view of the old chain (a re-index): its next run reads the
// emptied store's internal height.
func (e *internalTxs) reset() {
	e.f.top.Store(0)
	e.f.height.Store(0)
	e.f.mu.Lock()
	e.f.behind = nil
	e.f.mu.Unlock()
	e.f.size = writeSize{}
}
