package ethereum

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rollgate/rollgate/internal/devnet/internal/ethrpc"
)

// JSONRPC serves the chain's Ethereum JSON-RPC (single requests and batches) with the
// methods wallets (MetaMask's network checks, balance and nonce reads, fee estimation,
// eth_sendRawTransaction, receipt polling) and log scanners use. Answers follow geth's
// shapes and error codes (-32000 for refusals, -32602 for bad params, -32601 unknown method,
// 3 with the revert data for a reverted eth_call).
type JSONRPC struct {
	c   *Chain
	log *slog.Logger
}

// NewJSONRPC returns the handler.
func NewJSONRPC(c *Chain, log *slog.Logger) *JSONRPC {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &JSONRPC{c: c, log: log}
}

type rpcRequest struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// MarshalJSON writes "result": null when there is neither result nor error (an unknown
// receipt), as geth does.
func (r rpcResponse) MarshalJSON() ([]byte, error) {
	id := r.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if r.Error != nil {
		return json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *rpcError       `json:"error"`
		}{"2.0", id, r.Error})
	}
	return json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", id, r.Result})
}

// ServeHTTP implements http.Handler.
func (s *JSONRPC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMethodNotAllowed)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"only POST is served"}}` + "\n"))
		return
	}
	ethrpc.Serve(w, r, 8<<20, s.handle, rpcResponse{Error: &rpcError{Code: -32700, Message: "parse error"}})
}

func (s *JSONRPC) handle(q rpcRequest) rpcResponse {
	res, err := s.dispatch(q.Method, q.Params)
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = &rpcError{Code: -32000, Message: err.Error()}
		}
		return rpcResponse{ID: q.ID, Error: re}
	}
	return rpcResponse{ID: q.ID, Result: res}
}

func param[T any](p []json.RawMessage, i int) (T, bool) {
	var v T
	if i >= len(p) || string(p[i]) == "null" {
		return v, false
	}
	if json.Unmarshal(p[i], &v) != nil {
		return v, false
	}
	return v, true
}

func badParams(what string) error {
	return &rpcError{Code: -32602, Message: "invalid argument: " + what}
}

// height resolves a block tag (latest/pending/safe/finalized/earliest or a number); ok is
// false for a block not produced yet.
func (s *JSONRPC) height(p []json.RawMessage, i int) (int64, bool, error) {
	top := s.c.Height()
	var tag string
	if i < len(p) {
		if json.Unmarshal(p[i], &tag) != nil {
			var obj struct {
				BlockNumber *string      `json:"blockNumber"`
				BlockHash   *common.Hash `json:"blockHash"`
			}
			if json.Unmarshal(p[i], &obj) != nil {
				return 0, false, badParams("block tag")
			}
			switch {
			case obj.BlockHash != nil:
				b := s.c.BlockByHash(*obj.BlockHash)
				if b == nil {
					return 0, false, &rpcError{Code: -32000, Message: "header for hash not found"}
				}
				return b.Header.Number.Int64(), true, nil
			case obj.BlockNumber != nil:
				tag = *obj.BlockNumber
			}
		}
	}
	switch tag {
	case "", "latest", "pending", "safe", "finalized":
		return top, true, nil
	case "earliest":
		return 0, true, nil
	}
	n, err := hexutil.DecodeUint64(tag)
	if err != nil {
		return 0, false, badParams("block number " + strconv.Quote(tag))
	}
	return int64(n), int64(n) <= top, nil
}

func (s *JSONRPC) stateAt(p []json.RawMessage, i int) (*State, int64, error) {
	h, ok, err := s.height(p, i)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, &rpcError{Code: -32000, Message: "header not found"}
	}
	st, ok := s.c.StateAt(h)
	if !ok {
		return nil, 0, &rpcError{Code: -32000, Message: fmt.Sprintf("missing trie node for block %d (state not kept)", h)}
	}
	return st, h, nil
}

func hexU(n uint64) string { return hexutil.EncodeUint64(n) }

func hexBig(b *big.Int) string { return (*hexutil.Big)(b).String() }

func (s *JSONRPC) dispatch(method string, p []json.RawMessage) (any, error) {
	switch method {
	case "eth_chainId":
		return hexU(s.c.ChainID()), nil
	case "net_version":
		return strconv.FormatUint(s.c.ChainID(), 10), nil
	case "net_listening":
		return true, nil
	case "web3_clientVersion":
		return "rollgate-devnet/ethereum", nil
	case "eth_syncing":
		return false, nil
	case "eth_accounts":
		return []string{}, nil
	case "eth_blockNumber":
		return hexU(uint64(s.c.Height())), nil
	case "eth_gasPrice":
		return hexBig(s.c.BaseFee()), nil
	case "eth_maxPriorityFeePerGas":
		return "0x0", nil
	case "eth_feeHistory":
		return s.feeHistory(p)
	case "eth_getBalance", "eth_getTransactionCount", "eth_getCode":
		a, ok := param[common.Address](p, 0)
		if !ok {
			return nil, badParams("address")
		}
		if method == "eth_getTransactionCount" && len(p) > 1 && string(p[1]) == `"pending"` {
			return hexU(s.c.PendingNonce(a)), nil
		}
		st, _, err := s.stateAt(p, 1)
		if err != nil {
			return nil, err
		}
		switch method {
		case "eth_getBalance":
			return hexBig(st.Balance(a)), nil
		case "eth_getCode":
			if s.c.IsContract(a) {
				// No bytecode runs; a non-empty code tells wallets and libraries it is a contract.
				return "0xfe", nil
			}
			return "0x", nil
		}
		return hexU(st.Nonce(a)), nil
	case "eth_getBlockByNumber", "eth_getBlockByHash":
		full, _ := param[bool](p, 1)
		var b *Block
		if method == "eth_getBlockByHash" {
			h, ok := param[common.Hash](p, 0)
			if !ok {
				return nil, badParams("block hash")
			}
			b = s.c.BlockByHash(h)
		} else {
			h, ok, err := s.height(p, 0)
			if err != nil {
				return nil, err
			}
			if ok {
				b = s.c.Block(h)
			}
		}
		if b == nil {
			return nil, nil
		}
		return blockJSON(b, full, s.c.ChainID()), nil
	case "eth_getBlockTransactionCountByNumber":
		h, ok, err := s.height(p, 0)
		if err != nil || !ok {
			return nil, err
		}
		return hexU(uint64(len(s.c.Block(h).Txs))), nil
	case "eth_getTransactionByHash":
		h, ok := param[common.Hash](p, 0)
		if !ok {
			return nil, badParams("transaction hash")
		}
		if b, i, ok := s.c.Tx(h); ok {
			return txJSON(b, i, b.Txs[i], b.From[i], s.c.ChainID()), nil
		}
		if t, from, ok := s.c.PendingTx(h); ok {
			return txJSON(nil, 0, t, from, s.c.ChainID()), nil
		}
		return nil, nil
	case "eth_getTransactionReceipt":
		h, ok := param[common.Hash](p, 0)
		if !ok {
			return nil, badParams("transaction hash")
		}
		b, i, ok := s.c.Tx(h)
		if !ok {
			return nil, nil
		}
		return receiptJSON(b, i), nil
	case "eth_getBlockReceipts":
		h, ok, err := s.height(p, 0)
		if err != nil || !ok {
			return nil, err
		}
		b := s.c.Block(h)
		out := make([]any, len(b.Txs))
		for i := range b.Txs {
			out[i] = receiptJSON(b, i)
		}
		return out, nil
	case "eth_getLogs":
		return s.getLogs(p)
	case "eth_call", "eth_estimateGas":
		return s.call(method, p)
	case "eth_sendRawTransaction":
		raw, ok := param[hexutil.Bytes](p, 0)
		if !ok {
			return nil, badParams("raw transaction")
		}
		var tx types.Transaction
		if err := tx.UnmarshalBinary(raw); err != nil {
			return nil, &rpcError{Code: -32000, Message: "transaction could not be decoded: " + err.Error()}
		}
		if _, err := s.c.Submit(&tx); err != nil {
			return nil, &rpcError{Code: -32000, Message: err.Error()}
		}
		return tx.Hash().Hex(), nil
	}
	return nil, &rpcError{Code: -32601, Message: fmt.Sprintf("the method %s does not exist/is not available", method)}
}

type callArgs struct {
	From     *common.Address `json:"from"`
	To       *common.Address `json:"to"`
	Value    *hexutil.Big    `json:"value"`
	Data     *hexutil.Bytes  `json:"data"`
	Input    *hexutil.Bytes  `json:"input"`
	Gas      *hexutil.Uint64 `json:"gas"`
	GasPrice *hexutil.Big    `json:"gasPrice"`
}

func (s *JSONRPC) call(method string, p []json.RawMessage) (any, error) {
	args, ok := param[callArgs](p, 0)
	if !ok {
		return nil, badParams("call object")
	}
	_, h, err := s.stateAt(p, 1)
	if err != nil {
		return nil, err
	}
	var from common.Address
	if args.From != nil {
		from = *args.From
	}
	var data []byte
	if args.Input != nil {
		data = *args.Input
	} else if args.Data != nil {
		data = *args.Data
	}
	var value *big.Int
	if args.Value != nil {
		value = args.Value.ToInt()
	}
	ret, gas, err := s.c.Simulate(h, from, args.To, value, data)
	if err != nil {
		if errors.Is(err, ErrReverted) {
			return nil, &rpcError{Code: 3, Message: "execution reverted", Data: "0x"}
		}
		return nil, &rpcError{Code: -32000, Message: err.Error()}
	}
	if method == "eth_estimateGas" {
		return hexU(gas), nil
	}
	return hexutil.Encode(ret), nil
}

func (s *JSONRPC) feeHistory(p []json.RawMessage) (any, error) {
	var count uint64
	if n, ok := param[hexutil.Uint64](p, 0); ok {
		count = uint64(n)
	} else if n, ok := param[uint64](p, 0); ok {
		count = n
	} else {
		return nil, badParams("block count")
	}
	newest, ok, err := s.height(p, 1)
	if err != nil {
		return nil, err
	}
	if !ok {
		newest = s.c.Height()
	}
	count = min(count, uint64(newest)+1, 1024)
	oldest := newest - int64(count) + 1
	percentiles, _ := param[[]float64](p, 2)
	base := hexBig(s.c.BaseFee())
	fees := make([]string, 0, count+1)
	ratios := make([]float64, 0, count)
	var rewards [][]string
	for h := oldest; h <= newest; h++ {
		b := s.c.Block(h)
		fees = append(fees, base)
		ratios = append(ratios, float64(b.Header.GasUsed)/float64(b.Header.GasLimit))
		if len(percentiles) > 0 {
			r := make([]string, len(percentiles))
			for i := range r {
				r[i] = "0x0"
			}
			rewards = append(rewards, r)
		}
	}
	fees = append(fees, base) // the next block's base fee
	out := map[string]any{"oldestBlock": hexU(uint64(oldest)), "baseFeePerGas": fees, "gasUsedRatio": ratios}
	if rewards != nil {
		out["reward"] = rewards
	}
	return out, nil
}

// getLogs answers eth_getLogs by block range (at most 10,000 blocks) or block hash, address
// and topics.
func (s *JSONRPC) getLogs(p []json.RawMessage) (any, error) {
	var f struct {
		FromBlock *string           `json:"fromBlock"`
		ToBlock   *string           `json:"toBlock"`
		BlockHash *common.Hash      `json:"blockHash"`
		Address   json.RawMessage   `json:"address"`
		Topics    []json.RawMessage `json:"topics"`
	}
	if len(p) == 0 || json.Unmarshal(p[0], &f) != nil {
		return nil, badParams("filter")
	}
	addrs, topics, bad := ethrpc.ParseFilter(f.Address, f.Topics)
	if bad != "" {
		return nil, badParams(bad)
	}
	var from, to int64
	if f.BlockHash != nil {
		b := s.c.BlockByHash(*f.BlockHash)
		if b == nil {
			return nil, &rpcError{Code: -32000, Message: "unknown block"}
		}
		from, to = b.Header.Number.Int64(), b.Header.Number.Int64()
	} else {
		tag := func(t *string) []json.RawMessage {
			if t == nil {
				return nil
			}
			b, _ := json.Marshal(*t)
			return []json.RawMessage{b}
		}
		var err error
		if from, _, err = s.height(tag(f.FromBlock), 0); err != nil {
			return nil, err
		}
		if to, _, err = s.height(tag(f.ToBlock), 0); err != nil {
			return nil, err
		}
	}
	// The range asked for counts, as a provider's limit counts it, before it is cut at the tip.
	if to-from > 10000 {
		return nil, &rpcError{Code: -32005, Message: "query exceeds the 10000 block range limit"}
	}
	to = min(to, s.c.Height())
	out := []any{}
	for h := from; h <= to; h++ {
		b := s.c.Block(h)
		if b == nil {
			break
		}
		for _, r := range b.Receipts {
			for _, l := range r.Logs {
				if ethrpc.MatchLog(l, addrs, topics) {
					out = append(out, logJSON(l))
				}
			}
		}
	}
	return out, nil
}

type logOut struct {
	Address          common.Address `json:"address"`
	Topics           []common.Hash  `json:"topics"`
	Data             hexutil.Bytes  `json:"data"`
	BlockNumber      string         `json:"blockNumber"`
	TransactionHash  common.Hash    `json:"transactionHash"`
	TransactionIndex string         `json:"transactionIndex"`
	BlockHash        common.Hash    `json:"blockHash"`
	LogIndex         string         `json:"logIndex"`
	Removed          bool           `json:"removed"`
}

func logJSON(l *types.Log) logOut {
	t := l.Topics
	if t == nil {
		t = []common.Hash{}
	}
	return logOut{Address: l.Address, Topics: t, Data: l.Data, BlockNumber: hexU(l.BlockNumber), TransactionHash: l.TxHash,
		TransactionIndex: hexU(uint64(l.TxIndex)), BlockHash: l.BlockHash, LogIndex: hexU(uint64(l.Index))}
}

func blockJSON(b *Block, full bool, chainID uint64) map[string]any {
	h := b.Header
	txs := make([]any, len(b.Txs))
	for i, t := range b.Txs {
		if full {
			txs[i] = txJSON(b, i, t, b.From[i], chainID)
		} else {
			txs[i] = t.Hash()
		}
	}
	return map[string]any{
		"number": hexU(h.Number.Uint64()), "hash": b.Hash, "parentHash": h.ParentHash, "nonce": types.BlockNonce{},
		"mixHash": h.MixDigest, "sha3Uncles": h.UncleHash, "logsBloom": h.Bloom, "transactionsRoot": h.TxHash,
		"stateRoot": h.Root, "receiptsRoot": h.ReceiptHash, "miner": h.Coinbase, "difficulty": "0x0", "totalDifficulty": "0x0",
		"extraData": "0x", "size": hexU(types.NewBlockWithHeader(h).WithBody(types.Body{Transactions: b.Txs}).Size()),
		"gasLimit": hexU(h.GasLimit), "gasUsed": hexU(h.GasUsed), "timestamp": hexU(h.Time), "transactions": txs,
		"uncles": []string{}, "baseFeePerGas": hexBig(h.BaseFee),
	}
}

func txJSON(b *Block, i int, t *types.Transaction, from common.Address, chainID uint64) map[string]any {
	v, r, s := t.RawSignatureValues()
	out := map[string]any{
		"hash": t.Hash(), "nonce": hexU(t.Nonce()), "from": from, "to": t.To(), "value": hexBig(t.Value()),
		"gas": hexU(t.Gas()), "input": hexutil.Bytes(t.Data()), "type": hexU(uint64(t.Type())),
		"v": hexBig(v), "r": hexBig(r), "s": hexBig(s), "blockHash": nil, "blockNumber": nil, "transactionIndex": nil,
	}
	if b != nil {
		out["blockHash"], out["blockNumber"], out["transactionIndex"] = b.Hash, hexU(b.Header.Number.Uint64()), hexU(uint64(i))
	}
	switch t.Type() {
	case types.LegacyTxType:
		out["gasPrice"] = hexBig(t.GasPrice())
		if t.Protected() {
			out["chainId"] = hexU(chainID)
		}
	default:
		out["chainId"] = hexU(chainID)
		out["accessList"] = t.AccessList()
		if out["accessList"] == nil || len(t.AccessList()) == 0 {
			out["accessList"] = []any{}
		}
		out["yParity"] = hexBig(v)
		if t.Type() == types.DynamicFeeTxType {
			out["maxFeePerGas"], out["maxPriorityFeePerGas"] = hexBig(t.GasFeeCap()), hexBig(t.GasTipCap())
		}
		price := t.GasPrice()
		if b != nil {
			price = effectivePrice(t, b.Header.BaseFee)
		}
		out["gasPrice"] = hexBig(price)
	}
	return out
}

func receiptJSON(b *Block, i int) map[string]any {
	r, t := b.Receipts[i], b.Txs[i]
	logs := make([]logOut, len(r.Logs))
	for j, l := range r.Logs {
		logs[j] = logJSON(l)
	}
	return map[string]any{
		"transactionHash": r.TxHash, "transactionIndex": hexU(uint64(i)), "blockHash": b.Hash,
		"blockNumber": hexU(b.Header.Number.Uint64()), "from": b.From[i], "to": t.To(), "cumulativeGasUsed": hexU(r.CumulativeGasUsed),
		"gasUsed": hexU(r.GasUsed), "effectiveGasPrice": hexBig(r.EffectiveGasPrice), "contractAddress": nil,
		"logs": logs, "logsBloom": r.Bloom, "status": hexU(r.Status), "type": hexU(uint64(r.Type)),
	}
}
