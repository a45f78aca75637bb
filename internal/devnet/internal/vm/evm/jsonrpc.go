package evm

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/ethrpc"
	"github.com/rollgate/rollgate/internal/jsonx"
)

// ordered is a JSON object with a fixed key order.
type ordered []kv

type kv struct {
	k string
	v any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	return jsonx.Marshal(len(o), func(i int) (string, any) { return o[i].k, o[i].v })
}

// JSONObject lets jsonx write a nested o in place (the same bytes as MarshalJSON).
func (o ordered) JSONObject() (int, func(i int) (string, any), bool) {
	return len(o), func(i int) (string, any) { return o[i].k, o[i].v }, true
}

type rpcErr struct {
	Code    int
	Message string
}

func (e *rpcErr) Error() string { return e.Message }

// JSONRPC serves an EVM chain's Ethereum JSON-RPC (single requests and batches).
type JSONRPC struct {
	c    *engine.Chain
	m    *Module
	view *View
	log  *slog.Logger
}

// NewJSONRPC returns the Ethereum JSON-RPC handler of an EVM chain.
func NewJSONRPC(c *engine.Chain, m *Module, log *slog.Logger) *JSONRPC {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &JSONRPC{c: c, m: m, view: NewView(c, m), log: log}
}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// ServeHTTP implements http.Handler.
func (s *JSONRPC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	ethrpc.Serve(w, r, 16<<20, s.handle, envelope(json.RawMessage("null"), nil, &rpcErr{-32700, "parse error"}))
}

func envelope(id json.RawMessage, result any, err error) ordered {
	if id == nil {
		id = json.RawMessage("null")
	}
	if err != nil {
		var re *rpcErr
		if !errors.As(err, &re) {
			re = &rpcErr{-32000, err.Error()}
		}
		return ordered{{"jsonrpc", "2.0"}, {"id", id}, {"error", ordered{{"code", re.Code}, {"message", re.Message}}}}
	}
	return ordered{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}
}

func (s *JSONRPC) handle(q request) ordered {
	var params []json.RawMessage
	if len(q.Params) > 0 && string(q.Params) != "null" {
		if err := json.Unmarshal(q.Params, &params); err != nil {
			return envelope(q.ID, nil, &rpcErr{-32602, "invalid params"})
		}
	}
	res, err := s.dispatch(q.Method, params)
	return envelope(q.ID, res, err)
}

func str(p []json.RawMessage, i int) string {
	if i >= len(p) {
		return ""
	}
	var s string
	if json.Unmarshal(p[i], &s) != nil {
		return ""
	}
	return s
}

// height resolves a block tag ("latest", "0x..") to a height; ok=false for future heights.
func (s *JSONRPC) height(tag string) (int64, bool, error) {
	top := s.c.Height()
	switch tag {
	case "", "latest", "pending", "safe", "finalized":
		return top, true, nil
	case "earliest":
		return 1, true, nil
	}
	n, err := hexutil.DecodeUint64(tag)
	if err != nil {
		return 0, false, &rpcErr{-32602, "invalid block number"}
	}
	if n == 0 {
		n = 1
	}
	if int64(n) > top {
		return int64(n), false, nil
	}
	return int64(n), true, nil
}

func (s *JSONRPC) dispatch(method string, p []json.RawMessage) (any, error) {
	switch method {
	case "eth_chainId":
		return hexU(s.view.cid), nil
	case "net_version":
		return strconv.FormatUint(s.view.cid, 10), nil
	case "web3_clientVersion":
		return "0.38.19", nil
	case "eth_blockNumber":
		return hexU(uint64(s.c.Height())), nil
	case "eth_gasPrice", "eth_maxPriorityFeePerGas":
		return "0x0", nil
	case "eth_syncing":
		return false, nil
	case "eth_getBlockByNumber", "eth_getBlockByHash":
		full := false
		if len(p) > 1 {
			_ = json.Unmarshal(p[1], &full)
		}
		var b *ethBlock
		if method == "eth_getBlockByHash" {
			bb, ok := s.view.blockByHash(common.HexToHash(str(p, 0)))
			if !ok {
				return nil, nil
			}
			b = bb
		} else {
			h, ok, err := s.height(str(p, 0))
			if err != nil || !ok {
				return nil, err
			}
			if b, err = s.view.block(h); err != nil {
				return nil, nil
			}
		}
		return s.view.blockJSON(b, full), nil
	case "eth_getBlockReceipts":
		h, ok, err := s.height(str(p, 0))
		if err != nil || !ok {
			return nil, err
		}
		b, err := s.view.block(h)
		if err != nil {
			return nil, nil
		}
		return s.view.receipts(b), nil
	case "eth_getTransactionReceipt", "eth_getTransactionByHash":
		b, t, ok := s.view.txByHash(common.HexToHash(str(p, 0)))
		if !ok {
			return nil, nil
		}
		if method == "eth_getTransactionByHash" {
			return s.view.txJSON(b, t), nil
		}
		return s.view.receipt(b, t), nil
	case "cosmos_cosmosTxHashByTxHash":
		b, t, ok := s.view.txByHash(common.HexToHash(str(p, 0)))
		if !ok {
			return nil, nil
		}
		return hex.EncodeToString(b.cblock.TxHashes[t.cosmos][:]), nil
	case "debug_traceBlockByNumber":
		h, ok, err := s.height(str(p, 0))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &rpcErr{-32000, "requested height is greater than the latest block height"}
		}
		b, err := s.view.block(h)
		if err != nil {
			return nil, err
		}
		out := []any{}
		for _, t := range b.txs {
			out = append(out, ordered{{"txHash", t.hash.Hex()}, {"result", s.view.trace(t)}})
		}
		return out, nil
	case "debug_traceTransaction":
		_, t, ok := s.view.txByHash(common.HexToHash(str(p, 0)))
		if !ok {
			return nil, &rpcErr{-32000, "transaction not found"}
		}
		return s.view.trace(t), nil
	case "eth_call":
		return s.ethCall(p)
	case "eth_getBalance", "eth_getTransactionCount", "eth_getCode":
		addr := common.HexToAddress(str(p, 0))
		h, ok, err := s.height(str(p, 1))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &rpcErr{-32000, "header not found"}
		}
		q, err := s.c.Query(h)
		if err != nil {
			return nil, err
		}
		switch method {
		case "eth_getBalance":
			return (*hexutil.Big)(q.Balance(addr.Bytes(), s.m.cfg.FeeDenom)).String(), nil
		case "eth_getCode":
			if _, ok := getContract(q.Store(StoreName), addr); ok {
				return hexutil.Encode(codePrefix), nil
			}
			return "0x", nil
		}
		a, ok := engine.AccountAt(q, addr.Bytes())
		if !ok {
			return "0x0", nil
		}
		return hexU(a.Sequence), nil
	case "eth_sendRawTransaction":
		raw, err := hexutil.Decode(str(p, 0))
		if err != nil {
			return nil, &rpcErr{-32602, "invalid raw transaction"}
		}
		ctx, etx, err := WrapRawEthTx(raw, s.view.cid, s.c.Config().Bech32Prefix)
		if err != nil {
			return nil, &rpcErr{-32000, err.Error()}
		}
		res := s.c.BroadcastTxSync(ctx)
		if res.Code != 0 {
			return nil, &rpcErr{-32000, res.Log}
		}
		return etx.Hash().Hex(), nil
	case "eth_getLogs":
		return s.getLogs(p)
	case "eth_getBlockTransactionCountByNumber":
		h, ok, err := s.height(str(p, 0))
		if err != nil || !ok {
			return nil, err
		}
		b, err := s.view.block(h)
		if err != nil {
			return nil, nil
		}
		return hexU(uint64(len(b.txs))), nil
	case "eth_estimateGas":
		return hexU(300000), nil
	}
	return nil, &rpcErr{-32601, fmt.Sprintf("the method %s does not exist/is not available", method)}
}

// getLogs answers eth_getLogs over a block range (at most 10,000 blocks), by address and topics.
func (s *JSONRPC) getLogs(p []json.RawMessage) (any, error) {
	if len(p) == 0 {
		return nil, &rpcErr{-32602, "missing filter"}
	}
	var f struct {
		FromBlock string            `json:"fromBlock"`
		ToBlock   string            `json:"toBlock"`
		BlockHash *common.Hash      `json:"blockHash"`
		Address   json.RawMessage   `json:"address"`
		Topics    []json.RawMessage `json:"topics"`
	}
	if err := json.Unmarshal(p[0], &f); err != nil {
		return nil, &rpcErr{-32602, "invalid filter"}
	}
	addrs, topics, bad := ethrpc.ParseFilter(f.Address, f.Topics)
	if bad != "" {
		return nil, &rpcErr{-32602, "invalid " + bad}
	}
	var from, to int64
	if f.BlockHash != nil {
		b, ok := s.view.blockByHash(*f.BlockHash)
		if !ok {
			return nil, &rpcErr{-32000, "unknown block"}
		}
		from, to = b.height, b.height
	} else {
		var err error
		if from, _, err = s.height(f.FromBlock); err != nil {
			return nil, err
		}
		if to, _, err = s.height(f.ToBlock); err != nil {
			return nil, err
		}
		to = min(to, s.c.Height())
	}
	if to-from > 10000 {
		return nil, &rpcErr{-32005, "query exceeds the 10000 block range limit"}
	}
	out := []any{}
	for h := from; h <= to; h++ {
		b, err := s.view.block(h)
		if err != nil {
			break
		}
		for _, t := range b.txs {
			for _, l := range t.logs {
				if ethrpc.MatchLog(l, addrs, topics) {
					out = append(out, logJSON(l))
				}
			}
		}
	}
	return out, nil
}

func (s *JSONRPC) ethCall(p []json.RawMessage) (any, error) {
	if len(p) == 0 {
		return nil, &rpcErr{-32602, "missing call object"}
	}
	var call struct {
		To    *common.Address `json:"to"`
		Data  *hexutil.Bytes  `json:"data"`
		Input *hexutil.Bytes  `json:"input"`
	}
	if err := json.Unmarshal(p[0], &call); err != nil {
		return nil, &rpcErr{-32602, "invalid call object"}
	}
	tag := "latest"
	if len(p) > 1 {
		var t string
		if json.Unmarshal(p[1], &t) == nil {
			tag = t
		} else {
			var obj struct {
				BlockNumber string `json:"blockNumber"`
			}
			if json.Unmarshal(p[1], &obj) == nil && obj.BlockNumber != "" {
				tag = obj.BlockNumber
			}
		}
	}
	h, ok, err := s.height(tag)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &rpcErr{-32000, "header not found"}
	}
	q, err := s.c.Query(h)
	if err != nil {
		return nil, err
	}
	if call.To == nil {
		return "0x", nil
	}
	var input []byte
	if call.Input != nil {
		input = *call.Input
	} else if call.Data != nil {
		input = *call.Data
	}
	ret, err := s.m.Call(q, *call.To, input)
	if err != nil {
		return nil, &rpcErr{-32000, ErrExecutionReverted.Error()}
	}
	return hexutil.Encode(ret), nil
}
