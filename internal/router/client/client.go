// Package client is a Go client of the router API (rollgate's or any Skip Go API v2 / Initia
// router): route, op hook, msgs, and the tracking calls track, submit, status and a wait loop
// over status. It sends and reads the bodies of package wire, the ones the server
// decodes and writes.
package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// Client talks to one router.
type Client struct {
	base string
	hc   *http.Client
}

// New returns a client of the router at baseURL (e.g. http://127.0.0.1:8090).
func New(baseURL string) *Client {
	return &Client{base: strings.TrimRight(baseURL, "/"), hc: &http.Client{Timeout: 30 * time.Second}}
}

// Error is a router error answer.
type Error struct {
	HTTPStatus int
	Code       int      `json:"code"`
	Message    string   `json:"message"`
	Details    []string `json:"details"`
	Info       string   `json:"info"`
}

func (e *Error) Error() string {
	s := fmt.Sprintf("router: HTTP %d: %s", e.HTTPStatus, e.Message)
	if len(e.Details) > 0 {
		s += " (" + e.Details[0] + ")"
	}
	if e.Info != "" {
		s += "; " + e.Info
	}
	return s
}

// Reason is the machine reason of an error answer (details[0]), "" for other errors.
func Reason(err error) string {
	if e, ok := errors.AsType[*Error](err); ok && len(e.Details) > 0 {
		return e.Details[0]
	}
	return ""
}

func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		e := &Error{HTTPStatus: resp.StatusCode}
		if json.Unmarshal(raw, e) != nil || e.Message == "" {
			e.Message = strings.TrimSpace(string(raw))
		}
		return e
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("router %s: decoding answer: %w", path, err)
	}
	return nil
}

// GetJSON fetches url (e.g. a rollup executor's /withdrawal/{sequence}) and decodes its JSON.
func GetJSON(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %s", url, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	return json.Unmarshal(raw, out)
}

// Chains is GET /v2/info/chains, EVM chains included (Initia's answer carries each chain's rpc
// and rest; an EVM chain's rpc is its JSON-RPC).
func (c *Client) Chains(ctx context.Context) ([]wire.Chain, error) {
	var out struct {
		Chains []wire.Chain `json:"chains"`
	}
	if err := c.do(ctx, http.MethodGet, "/v2/info/chains?include_evm=true", nil, &out); err != nil {
		return nil, err
	}
	return out.Chains, nil
}

// Route is POST /v2/fungible/route.
func (c *Client) Route(ctx context.Context, req route.Request) (*route.Route, error) {
	var out route.Route
	return &out, c.do(ctx, http.MethodPost, "/v2/fungible/route", req, &out)
}

// OPHook is POST /op-hook.
func (c *Client) OPHook(ctx context.Context, req wire.OPHookRequest) (*wire.OPHookResponse, error) {
	var out wire.OPHookResponse
	return &out, c.do(ctx, http.MethodPost, "/op-hook", req, &out)
}

// Msgs is POST /v2/fungible/msgs.
func (c *Client) Msgs(ctx context.Context, req msgs.Request) (*msgs.Response, error) {
	var out msgs.Response
	return &out, c.do(ctx, http.MethodPost, "/v2/fungible/msgs", req, &out)
}

// Track is POST /v2/tx/track.
func (c *Client) Track(ctx context.Context, chainID, txHash string) (*track.TrackResponse, error) {
	var out track.TrackResponse
	return &out, c.do(ctx, http.MethodPost, "/v2/tx/track", wire.TrackRequest{TxHash: txHash, ChainID: chainID}, &out)
}

// Submit is POST /v2/tx/submit with signed TxRaw bytes.
func (c *Client) Submit(ctx context.Context, chainID string, tx []byte) (*track.TrackResponse, error) {
	var out track.TrackResponse
	return &out, c.do(ctx, http.MethodPost, "/v2/tx/submit", wire.SubmitRequest{Tx: base64.StdEncoding.EncodeToString(tx), ChainID: chainID}, &out)
}

// Status is GET /v2/tx/status.
func (c *Client) Status(ctx context.Context, chainID, txHash string) (*track.StatusResponse, error) {
	var out track.StatusResponse
	q := url.Values{"tx_hash": {txHash}, "chain_id": {chainID}}
	return &out, c.do(ctx, http.MethodGet, "/v2/tx/status?"+q.Encode(), nil, &out)
}

// Wait follows the transfer until it is terminal and returns the last answer; onChange sees
// every answer that differs from the previous one. It listens on /v2/tx/status/stream and
// polls Status every interval where the stream is unavailable (an older router, a Skip API,
// a proxy that strips streams) or keeps breaking off.
func (c *Client) Wait(ctx context.Context, chainID, txHash string, interval time.Duration, onChange func(*track.StatusResponse)) (*track.StatusResponse, error) {
	var last []byte
	seen := func(s *track.StatusResponse) {
		if b, _ := json.Marshal(s); !bytes.Equal(b, last) {
			last = b
			if onChange != nil {
				onChange(s)
			}
		}
	}
	for tries := 0; tries < maxStreamTries; tries++ {
		s, ok := c.follow(ctx, chainID, txHash, seen)
		if s != nil && Terminal(s) {
			return s, nil
		}
		if !ok || ctx.Err() != nil {
			break
		}
	}
	for {
		s, err := c.Status(ctx, chainID, txHash)
		if err != nil {
			return nil, err
		}
		seen(s)
		if Terminal(s) {
			return s, nil
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(interval):
		}
	}
}
