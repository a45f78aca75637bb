package ingest

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// HTTPSource is a Source over CometBFT RPC and Cosmos REST, speaking the same requests the peer
// sends (so a replayed capture answers them). It rotates over comma-separated URLs on
// transport errors and 5xx answers; retry with backoff is the pipeline's job.
type HTTPSource struct {
	rpc    endpoints
	rest   endpoints
	client *http.Client
}

// NewHTTPSource returns a source for the given RPC and REST URLs (each may be a comma-separated
// list). A nil client means a client with a 10 s timeout.
func NewHTTPSource(rpcURLs, restURLs string, client *http.Client) (*HTTPSource, error) {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	rpc, err := parseEndpoints(rpcURLs)
	if err != nil {
		return nil, fmt.Errorf("rpc url: %w", err)
	}
	rest, err := parseEndpoints(restURLs)
	if err != nil {
		return nil, fmt.Errorf("rest url: %w", err)
	}
	return &HTTPSource{rpc: rpc, rest: rest, client: client}, nil
}

type endpoints struct {
	urls []string
	cur  *atomic.Uint32
}

func parseEndpoints(list string) (endpoints, error) {
	var urls []string
	for _, u := range strings.Split(list, ",") {
		u = strings.TrimRight(strings.TrimSpace(u), "/")
		if u == "" {
			continue
		}
		if _, err := url.Parse(u); err != nil {
			return endpoints{}, err
		}
		urls = append(urls, u)
	}
	if len(urls) == 0 {
		return endpoints{}, errors.New("no URL given")
	}
	return endpoints{urls: urls, cur: new(atomic.Uint32)}, nil
}

func (e endpoints) base() (string, uint32) {
	i := e.cur.Load()
	return e.urls[int(i)%len(e.urls)], i
}

// rotate moves to the next URL unless another request already did.
func (e endpoints) rotate(from uint32) { e.cur.CompareAndSwap(from, from+1) }

// get fetches base+path and returns the status and body. Transport errors and 5xx answers
// rotate to the next endpoint; the caller decides what a non-2xx status means.
func (s *HTTPSource) get(ctx context.Context, ep endpoints, path string) (int, []byte, error) {
	base, idx := ep.base()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		ep.rotate(idx)
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		ep.rotate(idx)
		return 0, nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode >= 500 {
		ep.rotate(idx)
	}
	return resp.StatusCode, body, nil
}

// CometBFT reports a height above its head as a JSON-RPC error; these are the two wordings
// the peer keys on (`/block` and `/block_results`).
var cometFuture = regexp.MustCompile(`current blockchain height (\d+)|could not find results for height #(\d+)`)

type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    string `json:"data"`
	} `json:"error"`
}

func (s *HTTPSource) rpcCall(ctx context.Context, path string, out any) error {
	status, body, err := s.get(ctx, s.rpc, path)
	if err != nil {
		return err
	}
	var r rpcResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return fmt.Errorf("rpc %s: HTTP %d: %w", path, status, err)
	}
	if r.Error != nil {
		if cometFuture.MatchString(r.Error.Data) {
			return fmt.Errorf("rpc %s: %s: %w", path, r.Error.Data, ErrFutureHeight)
		}
		return fmt.Errorf("rpc %s: %s %s", path, r.Error.Message, r.Error.Data)
	}
	if status != http.StatusOK {
		return fmt.Errorf("rpc %s: HTTP %d", path, status)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("rpc %s: %w: %w", path, ErrInvalidData, err)
	}
	return nil
}

// LatestHeight implements Source.
func (s *HTTPSource) LatestHeight(ctx context.Context) (int64, error) {
	var st struct {
		SyncInfo struct {
			LatestBlockHeight string `json:"latest_block_height"`
		} `json:"sync_info"`
	}
	if err := s.rpcCall(ctx, "/status", &st); err != nil {
		return 0, err
	}
	h, err := strconv.ParseInt(st.SyncInfo.LatestBlockHeight, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("status: %w: height %q", ErrInvalidData, st.SyncInfo.LatestBlockHeight)
	}
	return h, nil
}

// Block implements Source.
func (s *HTTPSource) Block(ctx context.Context, height int64) (*RawBlock, error) {
	var r struct {
		BlockID struct {
			Hash string `json:"hash"`
		} `json:"block_id"`
		Block struct {
			Header struct {
				ChainID         string    `json:"chain_id"`
				Height          string    `json:"height"`
				Time            time.Time `json:"time"`
				ProposerAddress string    `json:"proposer_address"`
			} `json:"header"`
			Data struct {
				Txs []string `json:"txs"`
			} `json:"data"`
		} `json:"block"`
	}
	if err := s.rpcCall(ctx, "/block?height="+strconv.FormatInt(height, 10), &r); err != nil {
		return nil, err
	}
	h := r.Block.Header
	b := &RawBlock{ChainID: h.ChainID, Time: h.Time.UTC()}
	var err error
	if b.Height, err = strconv.ParseInt(h.Height, 10, 64); err != nil || b.Height != height {
		return nil, fmt.Errorf("block %d: %w: header height %q", height, ErrInvalidData, h.Height)
	}
	if b.Hash, err = hex.DecodeString(r.BlockID.Hash); err != nil {
		return nil, fmt.Errorf("block %d: %w: hash: %w", height, ErrInvalidData, err)
	}
	if b.ProposerAddress, err = hex.DecodeString(h.ProposerAddress); err != nil {
		return nil, fmt.Errorf("block %d: %w: proposer: %w", height, ErrInvalidData, err)
	}
	for i, t := range r.Block.Data.Txs {
		raw, err := base64.StdEncoding.DecodeString(t)
		if err != nil {
			return nil, fmt.Errorf("block %d tx %d: %w: %w", height, i, ErrInvalidData, err)
		}
		b.Txs = append(b.Txs, raw)
	}
	return b, nil
}

// BlockResults implements Source.
func (s *HTTPSource) BlockResults(ctx context.Context, height int64) ([]TxResult, error) {
	var r struct {
		Height     string `json:"height"`
		TxsResults []struct {
			Code      uint32  `json:"code"`
			Data      []byte  `json:"data"` // base64
			Log       string  `json:"log"`
			Info      string  `json:"info"`
			GasWanted string  `json:"gas_wanted"`
			GasUsed   string  `json:"gas_used"`
			Events    []Event `json:"events"`
			Codespace string  `json:"codespace"`
		} `json:"txs_results"`
	}
	if err := s.rpcCall(ctx, "/block_results?height="+strconv.FormatInt(height, 10), &r); err != nil {
		return nil, err
	}
	out := make([]TxResult, 0, len(r.TxsResults))
	for i, t := range r.TxsResults {
		res := TxResult{Code: t.Code, Codespace: t.Codespace, Data: t.Data, Log: t.Log, Info: t.Info, Events: t.Events}
		var err error
		if res.GasWanted, err = parseOptInt(t.GasWanted); err != nil {
			return nil, fmt.Errorf("block_results %d tx %d: %w: gas_wanted: %w", height, i, ErrInvalidData, err)
		}
		if res.GasUsed, err = parseOptInt(t.GasUsed); err != nil {
			return nil, fmt.Errorf("block_results %d tx %d: %w: gas_used: %w", height, i, ErrInvalidData, err)
		}
		out = append(out, res)
	}
	return out, nil
}

func parseOptInt(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

// restFuture is the REST wording for a height above the head (HTTP 500, code 2, sdk code 26).
var restFuture = regexp.MustCompile(`invalid height`)

func (s *HTTPSource) restGet(ctx context.Context, path string, out any) error {
	status, body, err := s.get(ctx, s.rest, path)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		if status == http.StatusInternalServerError && restFuture.Match(body) {
			return fmt.Errorf("rest %s: %w", path, ErrFutureHeight)
		}
		return fmt.Errorf("rest %s: HTTP %d: %s", path, status, clipBody(body))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("rest %s: %w: %w", path, ErrInvalidData, err)
	}
	return nil
}

func clipBody(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

type restPage struct {
	NextKey *string `json:"next_key"`
	Total   string  `json:"total"`
}

// BlockTxs implements Source. The first request is exactly the peer's
// (`?pagination.limit=100`); later pages follow next_key.
func (s *HTTPSource) BlockTxs(ctx context.Context, height int64) ([]json.RawMessage, error) {
	var all []json.RawMessage
	key := ""
	for page := 0; ; page++ {
		path := "/cosmos/tx/v1beta1/txs/block/" + strconv.FormatInt(height, 10) + "?pagination.limit=100"
		if key != "" {
			path += "&pagination.key=" + url.QueryEscape(key)
		}
		var r struct {
			Txs        []json.RawMessage `json:"txs"`
			Pagination *restPage         `json:"pagination"`
		}
		if err := s.restGet(ctx, path, &r); err != nil {
			return nil, err
		}
		all = append(all, r.Txs...)
		if r.Pagination == nil || r.Pagination.NextKey == nil || *r.Pagination.NextKey == "" || len(r.Txs) == 0 || page > 10000 {
			return all, nil
		}
		key = *r.Pagination.NextKey
	}
}

// Validators implements Source.
func (s *HTTPSource) Validators(ctx context.Context) ([]Validator, error) {
	var out []Validator
	key := ""
	for page := 0; page < 1000; page++ {
		path := "/opinit/opchild/v1/validators"
		if key != "" {
			path += "?pagination.key=" + url.QueryEscape(key)
		}
		var r struct {
			Validators []struct {
				Moniker         string `json:"moniker"`
				OperatorAddress string `json:"operator_address"`
				ConsensusPubkey struct {
					Type string `json:"@type"`
					Key  []byte `json:"key"`
				} `json:"consensus_pubkey"`
			} `json:"validators"`
			Pagination *restPage `json:"pagination"`
		}
		if err := s.restGet(ctx, path, &r); err != nil {
			return nil, err
		}
		for _, v := range r.Validators {
			out = append(out, Validator{
				Moniker:             v.Moniker,
				OperatorAddress:     v.OperatorAddress,
				ConsensusPubKeyType: v.ConsensusPubkey.Type,
				ConsensusPubKey:     v.ConsensusPubkey.Key,
			})
		}
		if r.Pagination == nil || r.Pagination.NextKey == nil || *r.Pagination.NextKey == "" {
			break
		}
		key = *r.Pagination.NextKey
	}
	return out, nil
}

var _ Source = (*HTTPSource)(nil)
