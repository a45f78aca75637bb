// Package comet is rollgate's client of the CometBFT 0.38 RPC (URI GETs, and JSON-RPC POSTs for
// batches and broadcasts) and the response types, which the devnet also uses to produce the
// same JSON.
package comet

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/jsonx"
)

// Client talks to one chain's CometBFT RPC.
type Client struct {
	h *httpx.Client
}

// New returns a client over comma-separated RPC base URLs.
func New(endpoints string, opts ...httpx.Option) (*Client, error) {
	h, err := httpx.New(endpoints, opts...)
	if err != nil {
		return nil, fmt.Errorf("comet: %w", err)
	}
	return &Client{h: h}, nil
}

// NewWithTransport wraps an existing transport.
func NewWithTransport(h *httpx.Client) *Client { return &Client{h: h} }

// Transport returns the underlying transport.
func (c *Client) Transport() *httpx.Client { return c.h }

// isRPCError says whether a non-2xx body is a JSON-RPC error envelope: CometBFT's definitive
// answer (future height, unknown tx), which retrying will not change.
func isRPCError(_ int, body []byte) bool {
	var env RPCResponse
	return jsonx.Unmarshal(body, &env) == nil && env.Error != nil
}

// URI performs a GET of route (e.g. "consensus_params") with URI arguments (string arguments
// must be quoted, byte arguments 0x-hex, as CometBFT's URI form wants), decodes the result into
// out (nil to skip) and returns the raw result. It is the escape hatch for routes without a helper.
func (c *Client) URI(ctx context.Context, route string, q url.Values, out any) (json.RawMessage, error) {
	return c.call(ctx, route, q, out)
}

// call performs a URI GET and decodes the result into out; it returns the raw result.
func (c *Client) call(ctx context.Context, route string, q url.Values, out any) (json.RawMessage, error) {
	resp, err := c.h.Do(ctx, httpx.Request{Path: "/" + route, Query: q, ExpectJSON: true, Final: isRPCError})
	if err == nil {
		// ExpectJSON has validated the body, so its result can be cut out without a decode.
		if res, ok := jsonx.RPCResult(resp.Body); ok {
			if out != nil {
				if err := jsonx.Unmarshal(res, out); err != nil {
					return nil, fmt.Errorf("comet %s: decoding result: %w", route, err)
				}
			}
			return res, nil
		}
	}
	return decodeEnvelope(route, resp, err, out)
}

func decodeEnvelope(route string, resp *httpx.Response, err error, out any) (json.RawMessage, error) {
	var body []byte
	status := 0
	if err != nil {
		se, ok := httpx.AsStatus(err)
		if !ok {
			return nil, fmt.Errorf("comet %s: %w", route, err)
		}
		body, status = se.Body, se.Status
	} else {
		body, status = resp.Body, resp.Status
	}
	var env RPCResponse
	if jerr := jsonx.Unmarshal(body, &env); jerr != nil {
		if err != nil {
			return nil, fmt.Errorf("comet %s: %w", route, err)
		}
		return nil, fmt.Errorf("comet %s: decoding envelope: %w", route, jerr)
	}
	if env.Error != nil {
		env.Error.HTTPStatus = status
		return nil, fmt.Errorf("comet %s: %w", route, env.Error)
	}
	if err != nil {
		return nil, fmt.Errorf("comet %s: %w", route, err)
	}
	if out != nil {
		if err := jsonx.Unmarshal(env.Result, out); err != nil {
			return nil, fmt.Errorf("comet %s: decoding result: %w", route, err)
		}
	}
	return env.Result, nil
}

func heightQuery(h int64) url.Values {
	q := url.Values{}
	if h > 0 {
		q.Set("height", strconv.FormatInt(h, 10))
	}
	return q
}

// Status is /status.
func (c *Client) Status(ctx context.Context) (*ResultStatus, error) {
	var r ResultStatus
	if _, err := c.call(ctx, "status", nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// LatestHeight is /status's latest_block_height.
func (c *Client) LatestHeight(ctx context.Context) (int64, error) {
	st, err := c.Status(ctx)
	if err != nil {
		return 0, err
	}
	return st.SyncInfo.LatestBlockHeight, nil
}

// Block is /block; h <= 0 asks for the latest block.
func (c *Client) Block(ctx context.Context, h int64) (*ResultBlock, error) {
	var r ResultBlock
	raw, err := c.call(ctx, "block", heightQuery(h), &r)
	if err != nil {
		return nil, err
	}
	r.Raw = raw
	return &r, nil
}

// BlockResults is /block_results; h <= 0 asks for the latest height.
func (c *Client) BlockResults(ctx context.Context, h int64) (*ResultBlockResults, error) {
	raw, err := c.call(ctx, "block_results", heightQuery(h), nil)
	if err != nil {
		return nil, err
	}
	var r ResultBlockResults
	if err := r.decodeValid(raw); err != nil {
		return nil, fmt.Errorf("comet block_results: decoding result: %w", err)
	}
	r.Raw = raw
	return &r, nil
}

// Blockchain is /blockchain: headers of [minHeight, maxHeight] (at most 20, newest first).
func (c *Client) Blockchain(ctx context.Context, minHeight, maxHeight int64) (*ResultBlockchainInfo, error) {
	q := url.Values{}
	q.Set("minHeight", strconv.FormatInt(minHeight, 10))
	q.Set("maxHeight", strconv.FormatInt(maxHeight, 10))
	var r ResultBlockchainInfo
	if _, err := c.call(ctx, "blockchain", q, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Validators is /validators at height h (first page, CometBFT's default size of 30).
func (c *Client) Validators(ctx context.Context, h int64) (*ResultValidators, error) {
	var r ResultValidators
	if _, err := c.call(ctx, "validators", heightQuery(h), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func hashParam(hash string) (string, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(hash, "0x"), "0X")
	if _, err := hex.DecodeString(h); err != nil || h == "" {
		return "", fmt.Errorf("comet: tx hash %q is not hex", hash)
	}
	return "0x" + strings.ToUpper(h), nil
}

// Tx is /tx by hash (hex, with or without 0x).
func (c *Client) Tx(ctx context.Context, hash string, prove bool) (*ResultTx, error) {
	hp, err := hashParam(hash)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("hash", hp)
	if prove {
		q.Set("prove", "true")
	}
	var r ResultTx
	if _, err := c.call(ctx, "tx", q, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// TxSearch is /tx_search. query is CometBFT query syntax (e.g. "send_packet.packet_sequence='4'");
// page starts at 1; orderBy is "asc", "desc" or "".
func (c *Client) TxSearch(ctx context.Context, query string, page, perPage int, orderBy string) (*ResultTxSearch, error) {
	q := url.Values{}
	q.Set("query", strconv.Quote(query))
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if perPage > 0 {
		q.Set("per_page", strconv.Itoa(perPage))
	}
	if orderBy != "" {
		q.Set("order_by", strconv.Quote(orderBy))
	}
	var r ResultTxSearch
	if _, err := c.call(ctx, "tx_search", q, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Genesis is /genesis.
func (c *Client) Genesis(ctx context.Context) (*ResultGenesis, error) {
	var r ResultGenesis
	if _, err := c.call(ctx, "genesis", nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// GenesisChunk is /genesis_chunked?chunk=n (0-based), CometBFT's answer for a genesis too
// large for /genesis (above 16 MB /genesis refuses and names this route).
func (c *Client) GenesisChunk(ctx context.Context, n int) (*ResultGenesisChunk, error) {
	var r ResultGenesisChunk
	if _, err := c.call(ctx, "genesis_chunked", url.Values{"chunk": {strconv.Itoa(n)}}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// GenesisChunked reads the whole genesis document through /genesis_chunked, chunk by chunk.
func (c *Client) GenesisChunked(ctx context.Context) (*ResultGenesis, error) {
	var doc []byte
	for n, total := 0, 1; n < total; n++ {
		r, err := c.GenesisChunk(ctx, n)
		if err != nil {
			return nil, err
		}
		if r.Chunk != n || r.Total < 1 || (n > 0 && r.Total != total) {
			return nil, fmt.Errorf("comet genesis_chunked: chunk %d of %d answered for chunk %d of %d", r.Chunk, r.Total, n, total)
		}
		total = r.Total
		doc = append(doc, r.Data...)
	}
	if !json.Valid(doc) {
		return nil, errors.New("comet genesis_chunked: the chunks do not make a JSON document")
	}
	return &ResultGenesis{Genesis: doc}, nil
}

// ABCIInfo is /abci_info.
func (c *Client) ABCIInfo(ctx context.Context) (*ResultABCIInfo, error) {
	var r ResultABCIInfo
	if _, err := c.call(ctx, "abci_info", nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ABCIQuery is /abci_query; height <= 0 queries the latest state.
func (c *Client) ABCIQuery(ctx context.Context, path string, data []byte, height int64, prove bool) (*ResultABCIQuery, error) {
	q := url.Values{}
	q.Set("path", strconv.Quote(path))
	if len(data) > 0 {
		q.Set("data", "0x"+hex.EncodeToString(data))
	}
	if height > 0 {
		q.Set("height", strconv.FormatInt(height, 10))
	}
	if prove {
		q.Set("prove", "true")
	}
	var r ResultABCIQuery
	if _, err := c.call(ctx, "abci_query", q, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// BroadcastTxSync submits tx bytes and returns the CheckTx outcome. It is sent as a JSON-RPC POST
// so large txs do not end up in a URL.
func (c *Client) BroadcastTxSync(ctx context.Context, tx []byte) (*ResultBroadcastTx, error) {
	params, _ := json.Marshal(map[string][]byte{"tx": tx})
	body, _ := json.Marshal(RPCRequest{JSONRPC: "2.0", ID: json.RawMessage("1"), Method: "broadcast_tx_sync", Params: params})
	resp, err := c.h.Do(ctx, httpx.Request{Method: http.MethodPost, Path: "/", Body: body, ExpectJSON: true, Final: isRPCError})
	var r ResultBroadcastTx
	if _, err := decodeEnvelope("broadcast_tx_sync", resp, err, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// BlockBundle is one height's /block and /block_results.
type BlockBundle struct {
	Height  int64
	Block   *ResultBlock
	Results *ResultBlockResults
}

// BlockAndResults fetches /block and /block_results for several heights in one JSON-RPC batch.
// The slice has one entry per height, nil where that height failed; the error joins the
// per-height errors (each wraps *RPCError, so IsFutureHeight works on it).
func (c *Client) BlockAndResults(ctx context.Context, heights []int64) ([]*BlockBundle, error) {
	if len(heights) == 0 {
		return nil, nil
	}
	reqs := make([]RPCRequest, 0, 2*len(heights))
	for i, h := range heights {
		p, _ := json.Marshal(map[string]string{"height": strconv.FormatInt(h, 10)})
		reqs = append(reqs,
			RPCRequest{JSONRPC: "2.0", ID: json.RawMessage(strconv.Itoa(2 * i)), Method: "block", Params: p},
			RPCRequest{JSONRPC: "2.0", ID: json.RawMessage(strconv.Itoa(2*i + 1)), Method: "block_results", Params: p})
	}
	body, _ := json.Marshal(reqs)
	resp, err := c.h.Do(ctx, httpx.Request{Method: http.MethodPost, Path: "/", Body: body, ExpectJSON: true, Final: isBatchAnswer})
	var raw []byte
	if err != nil {
		se, ok := httpx.AsStatus(err)
		if !ok {
			return nil, fmt.Errorf("comet batch: %w", err)
		}
		if _, derr := decodeEnvelope("batch", nil, err, nil); derr != nil && bytes.HasPrefix(bytes.TrimSpace(se.Body), []byte("{")) {
			return nil, derr // the whole batch was refused with one error
		}
		return nil, fmt.Errorf("comet batch: %w", err)
	}
	raw = resp.Body
	var envs []RPCResponse
	if err := jsonx.Unmarshal(raw, &envs); err != nil {
		return nil, fmt.Errorf("comet batch: decoding: %w", err)
	}
	byID := make(map[string]*RPCResponse, len(envs))
	for i := range envs {
		byID[string(bytes.TrimSpace(envs[i].ID))] = &envs[i]
	}
	out := make([]*BlockBundle, len(heights))
	var errs []error
	for i, h := range heights {
		b := &BlockBundle{Height: h, Block: &ResultBlock{}, Results: &ResultBlockResults{}}
		err := decodeBatchItem(byID[strconv.Itoa(2*i)], b.Block, &b.Block.Raw)
		if err == nil {
			err = decodeBatchItem(byID[strconv.Itoa(2*i+1)], b.Results, &b.Results.Raw)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("comet batch height %d: %w", h, err))
			continue
		}
		out[i] = b
	}
	return out, errors.Join(errs...)
}

func isBatchAnswer(status int, body []byte) bool {
	b := bytes.TrimSpace(body)
	if len(b) > 0 && b[0] == '[' {
		return json.Valid(b)
	}
	return isRPCError(status, body)
}

func decodeBatchItem(env *RPCResponse, out any, raw *json.RawMessage) error {
	if env == nil {
		return errors.New("missing from the batch answer")
	}
	if env.Error != nil {
		return env.Error
	}
	if err := jsonx.Unmarshal(env.Result, out); err != nil {
		return fmt.Errorf("decoding result: %w", err)
	}
	*raw = env.Result
	return nil
}

var (
	futureRe   = regexp.MustCompile(`must be less than or equal to the current blockchain height (\d+)`)
	noResultRe = regexp.MustCompile(`could not find results for height #(\d+)`)
)

// IsFutureHeight recognises CometBFT's answers for a height the node has not reached:
// "height N must be less than or equal to the current blockchain height M" (current = M) and
// "could not find results for height #N" (the block exists but its results are not stored
// yet; current = N-1, the last height with results).
func IsFutureHeight(err error) (current int64, ok bool) {
	var re *RPCError
	if !errors.As(err, &re) {
		return 0, false
	}
	text := re.Data + " " + re.Message
	if m := futureRe.FindStringSubmatch(text); m != nil {
		n, perr := strconv.ParseInt(m[1], 10, 64)
		return n, perr == nil
	}
	if m := noResultRe.FindStringSubmatch(text); m != nil {
		n, perr := strconv.ParseInt(m[1], 10, 64)
		return n - 1, perr == nil
	}
	return 0, false
}

// IsNotFound recognises "tx (HASH) not found".
func IsNotFound(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && strings.Contains(re.Data, "not found")
}
