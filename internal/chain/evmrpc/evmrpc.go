// Package evmrpc is rollgate's Ethereum JSON-RPC 2.0 client (single calls and batches) with
// typed helpers for the calls the indexer, router and tests make against minievm nodes.
// Blocks, receipts and traces keep their raw JSON next to a light typed view, because the
// indexer stores them verbatim.
package evmrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/jsonx"
)

// ErrNotFound is returned when the node answers a null result (unknown tx, future block).
var ErrNotFound = errors.New("evmrpc: not found (null result)")

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("json-rpc error %d: %s (%s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message)
}

// Request is one element of a batch. Result, when non-nil, receives the decoded result
// (use *json.RawMessage to keep bytes); Error is set per element after Batch returns.
type Request struct {
	Method string
	Params []any
	Result any
	Error  error
}

type wireReq struct {
	JSONRPC string `json:"jsonrpc"`
	ID      uint64 `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
}

type wireResp struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCError       `json:"error"`
}

// Client talks to one chain's Ethereum JSON-RPC.
type Client struct {
	h  *httpx.Client
	id atomic.Uint64
	// TraceTimeout is the per-attempt timeout of trace calls, which are slow on busy blocks.
	TraceTimeout time.Duration
}

// New returns a client over comma-separated JSON-RPC URLs.
func New(endpoints string, opts ...httpx.Option) (*Client, error) {
	h, err := httpx.New(endpoints, opts...)
	if err != nil {
		return nil, fmt.Errorf("evmrpc: %w", err)
	}
	return NewWithTransport(h), nil
}

// NewWithTransport wraps an existing transport.
func NewWithTransport(h *httpx.Client) *Client {
	return &Client{h: h, TraceTimeout: 60 * time.Second}
}

// Transport returns the underlying transport.
func (c *Client) Transport() *httpx.Client { return c.h }

// readMethods are the JSON-RPC methods that only read the chain: the transport may send them
// twice (hedging) and cut them at a timeout learnt from their own latency. Anything else (a
// tx broadcast) goes out once per attempt with the configured timeout.
var readMethods = map[string]bool{
	"eth_blockNumber": true, "eth_call": true, "eth_chainId": true, "eth_getBlockByNumber": true,
	"eth_getBlockReceipts": true, "eth_getTransactionReceipt": true, "eth_getBalance": true,
	"eth_getCode": true, "eth_getLogs": true, "debug_traceBlockByNumber": true,
	"debug_traceTransaction": true,
}

// post sends one JSON-RPC body; kind names its method (and for a batch its size), so the
// latency statistics of a 50-call batch and of eth_chainId stay apart.
func (c *Client) post(ctx context.Context, body []byte, timeout time.Duration, kind string, read bool) ([]byte, error) {
	resp, err := c.h.Do(ctx, httpx.Request{Method: http.MethodPost, Path: "", Body: body, ExpectJSON: true, Timeout: timeout,
		Kind: kind, Idempotent: read})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// Call performs one JSON-RPC call and decodes the result into out (nil to discard;
// *json.RawMessage to keep bytes). A null result is ErrNotFound.
func (c *Client) Call(ctx context.Context, method string, params []any, out any) error {
	return c.call(ctx, 0, method, params, out)
}

func (c *Client) call(ctx context.Context, timeout time.Duration, method string, params []any, out any) error {
	if params == nil {
		params = []any{}
	}
	id := c.id.Add(1)
	body, err := json.Marshal(wireReq{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("evmrpc %s: encoding params: %w", method, err)
	}
	raw, err := c.post(ctx, body, timeout, method, readMethods[method])
	if err != nil {
		return fmt.Errorf("evmrpc %s: %w", method, err)
	}
	var r wireResp
	// post's ExpectJSON has validated the body, so its result can be cut out without a decode.
	if res, ok := jsonx.RPCResult(raw); ok {
		r.Result = res
	} else if err := jsonx.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("evmrpc %s: decoding response: %w", method, err)
	}
	return decodeResult(method, &r, out)
}

func decodeResult(method string, r *wireResp, out any) error {
	if r.Error != nil {
		return fmt.Errorf("evmrpc %s: %w", method, r.Error)
	}
	res := bytes.TrimSpace(r.Result)
	if len(res) == 0 || string(res) == "null" {
		return fmt.Errorf("evmrpc %s: %w", method, ErrNotFound)
	}
	if out == nil {
		return nil
	}
	if rm, ok := out.(*json.RawMessage); ok {
		*rm = append((*rm)[:0], res...)
		return nil
	}
	// A block's receipts are split into raw elements; the answer is valid JSON (httpx's
	// ExpectJSON), so jsonx cuts them out instead of json.Unmarshal scanning them twice to copy
	// them. Anything that is not an array goes to json.Unmarshal for its error.
	if rs, ok := out.(*[]json.RawMessage); ok {
		elems := []json.RawMessage{}
		if jsonx.Elements(res, func(e []byte) { elems = append(elems, e) }) {
			*rs = elems
			return nil
		}
	}
	if err := jsonx.Unmarshal(res, out); err != nil {
		return fmt.Errorf("evmrpc %s: decoding result: %w", method, err)
	}
	return nil
}

// Batch sends the requests as one JSON-RPC batch and matches answers by id. The returned
// error is about the batch as a whole; per-element failures are in reqs[i].Error.
func (c *Client) Batch(ctx context.Context, reqs []Request) error {
	if len(reqs) == 0 {
		return nil
	}
	wire := make([]wireReq, len(reqs))
	base := c.id.Add(uint64(len(reqs))) - uint64(len(reqs)) + 1
	for i, r := range reqs {
		p := r.Params
		if p == nil {
			p = []any{}
		}
		wire[i] = wireReq{JSONRPC: "2.0", ID: base + uint64(i), Method: r.Method, Params: p}
	}
	body, err := json.Marshal(wire)
	if err != nil {
		return fmt.Errorf("evmrpc batch: encoding: %w", err)
	}
	read := true
	for _, r := range reqs {
		read = read && readMethods[r.Method]
	}
	// Batches of one method and about the same size cost about the same: the size is
	// bucketed by powers of two.
	raw, err := c.post(ctx, body, 0, fmt.Sprintf("batch %s ×%d", reqs[0].Method, 1<<bits.Len(uint(len(reqs)-1))), read)
	if err != nil {
		return fmt.Errorf("evmrpc batch: %w", err)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' { // the whole batch was refused
		var r wireResp
		if err := jsonx.Unmarshal(raw, &r); err == nil && r.Error != nil {
			return fmt.Errorf("evmrpc batch: %w", r.Error)
		}
	}
	resps, ok := cutBatch(raw)
	if !ok {
		resps = nil
		if err := jsonx.Unmarshal(raw, &resps); err != nil {
			return fmt.Errorf("evmrpc batch: decoding: %w", err)
		}
	}
	byID := make(map[uint64]*wireResp, len(resps))
	for i := range resps {
		if id, err := strconv.ParseUint(string(bytes.TrimSpace(resps[i].ID)), 10, 64); err == nil {
			byID[id] = &resps[i]
		}
	}
	for i := range reqs {
		r, ok := byID[base+uint64(i)]
		if !ok {
			reqs[i].Error = fmt.Errorf("evmrpc %s: no answer in the batch", reqs[i].Method)
			continue
		}
		reqs[i].Error = decodeResult(reqs[i].Method, r, reqs[i].Result)
	}
	return nil
}

// cutBatch cuts a batch's answers out of the validated body (post's ExpectJSON) as call does a
// single answer's, so a block with its txs and receipts is not scanned once more only to copy
// each result; an error answer, or one jsonx.RPCAnswer declines, is decoded on its own. ok is
// false when the body is not an array: the caller then decodes it whole, as before.
func cutBatch(raw []byte) ([]wireResp, bool) {
	var resps []wireResp
	var err error
	ok := jsonx.Elements(raw, func(e []byte) {
		var r wireResp
		if id, res, ok := jsonx.RPCAnswer(e); ok {
			r.ID, r.Result = id, res
		} else if uerr := jsonx.Unmarshal(e, &r); uerr != nil && err == nil {
			err = uerr
		}
		resps = append(resps, r)
	})
	return resps, ok && err == nil
}

// BlockTag renders a height as a JSON-RPC block parameter; h < 0 is "latest".
func BlockTag(h int64) string {
	if h < 0 {
		return "latest"
	}
	return "0x" + strconv.FormatInt(h, 16)
}

// BlockNumber is eth_blockNumber.
func (c *Client) BlockNumber(ctx context.Context) (uint64, error) {
	var n hexutil.Uint64
	if err := c.Call(ctx, "eth_blockNumber", nil, &n); err != nil {
		return 0, err
	}
	return uint64(n), nil
}

// ChainID is eth_chainId.
func (c *Client) ChainID(ctx context.Context) (uint64, error) {
	var n hexutil.Uint64
	if err := c.Call(ctx, "eth_chainId", nil, &n); err != nil {
		return 0, err
	}
	return uint64(n), nil
}

// Block is a light view of eth_getBlockByNumber; Raw is the result verbatim and Transactions
// holds each tx object (full) or hash string (not full) verbatim.
type Block struct {
	Number       hexutil.Uint64    `json:"number"`
	Hash         string            `json:"hash"`
	ParentHash   string            `json:"parentHash"`
	Timestamp    hexutil.Uint64    `json:"timestamp"`
	GasUsed      hexutil.Uint64    `json:"gasUsed"`
	GasLimit     hexutil.Uint64    `json:"gasLimit"`
	Miner        string            `json:"miner"`
	Transactions []json.RawMessage `json:"transactions"`
	Raw          json.RawMessage   `json:"-"`
}

// BlockByNumber is eth_getBlockByNumber; h < 0 is the latest block. A block the node does not
// have yet is ErrNotFound.
func (c *Client) BlockByNumber(ctx context.Context, h int64, full bool) (*Block, error) {
	var raw json.RawMessage
	if err := c.Call(ctx, "eth_getBlockByNumber", []any{BlockTag(h), full}, &raw); err != nil {
		return nil, err
	}
	var b Block
	if err := jsonx.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("evmrpc eth_getBlockByNumber: decoding block: %w", err)
	}
	b.Raw = raw
	return &b, nil
}

// Log is an EVM log.
type Log struct {
	Address          string         `json:"address"`
	Topics           []string       `json:"topics"`
	Data             string         `json:"data"`
	BlockNumber      hexutil.Uint64 `json:"blockNumber"`
	TransactionHash  string         `json:"transactionHash"`
	TransactionIndex hexutil.Uint64 `json:"transactionIndex"`
	BlockHash        string         `json:"blockHash"`
	LogIndex         hexutil.Uint64 `json:"logIndex"`
	Removed          bool           `json:"removed"`
}

// Receipt is a light view of a transaction receipt; Raw is the object verbatim.
type Receipt struct {
	TransactionHash   string          `json:"transactionHash"`
	TransactionIndex  hexutil.Uint64  `json:"transactionIndex"`
	BlockHash         string          `json:"blockHash"`
	BlockNumber       hexutil.Uint64  `json:"blockNumber"`
	From              string          `json:"from"`
	To                *string         `json:"to"`
	ContractAddress   *string         `json:"contractAddress"`
	Status            hexutil.Uint64  `json:"status"`
	GasUsed           hexutil.Uint64  `json:"gasUsed"`
	CumulativeGasUsed hexutil.Uint64  `json:"cumulativeGasUsed"`
	EffectiveGasPrice *hexutil.Big    `json:"effectiveGasPrice"`
	Type              hexutil.Uint64  `json:"type"`
	Logs              []Log           `json:"logs"`
	Raw               json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the verbatim bytes alongside the typed fields.
func (r *Receipt) UnmarshalJSON(b []byte) error {
	type plain Receipt
	var p plain
	if err := jsonx.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = Receipt(p)
	r.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// BlockReceipts is eth_getBlockReceipts; a future block is ErrNotFound.
func (c *Client) BlockReceipts(ctx context.Context, h int64) ([]*Receipt, error) {
	var rs []*Receipt
	if err := c.Call(ctx, "eth_getBlockReceipts", []any{BlockTag(h)}, &rs); err != nil {
		return nil, err
	}
	return rs, nil
}

// TransactionReceipt is eth_getTransactionReceipt; an unknown hash is ErrNotFound.
func (c *Client) TransactionReceipt(ctx context.Context, hash string) (*Receipt, error) {
	var r Receipt
	if err := c.Call(ctx, "eth_getTransactionReceipt", []any{hash}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// TraceBlockByNumber is debug_traceBlockByNumber with the given tracer ("callTracer"; "" for
// the node's default), returned verbatim.
func (c *Client) TraceBlockByNumber(ctx context.Context, h int64, tracer string) (json.RawMessage, error) {
	params := []any{BlockTag(h)}
	if tracer != "" {
		params = append(params, map[string]string{"tracer": tracer})
	}
	var raw json.RawMessage
	if err := c.call(ctx, c.TraceTimeout, "debug_traceBlockByNumber", params, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// EthCall is eth_call of data (0x-hex) on contract to at blockTag ("latest", "0x44", see
// BlockTag); it returns the 0x-hex output.
func (c *Client) EthCall(ctx context.Context, to, data, blockTag string) (string, error) {
	if blockTag == "" {
		blockTag = "latest"
	}
	var out string
	if err := c.Call(ctx, "eth_call", []any{map[string]string{"to": to, "data": data}, blockTag}, &out); err != nil {
		return "", err
	}
	return out, nil
}

// IsFutureBlock recognises minievm's error for a block beyond the head (debug traces answer
// this way; block and receipt calls answer null, i.e. ErrNotFound).
func IsFutureBlock(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && strings.Contains(re.Message, "greater than the latest block height")
}
