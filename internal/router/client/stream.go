package client

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"

	"github.com/rollgate/rollgate/internal/httpapi/sse"
	"github.com/rollgate/rollgate/internal/router/track"
)

// maxStreamTries bounds how often Wait reopens a status stream that ended before a terminal
// state (a server shutting down, a dropped connection) before it polls instead.
const maxStreamTries = 3

// streamClient has no overall timeout: a stream lasts as long as the transfer (the context
// bounds it).
var streamClient = &http.Client{}

// statusFailedLegacy is the status rollgate routers before the STATE_COMPLETED mapping
// answered a failed transfer with; Wait may still talk to one.
const statusFailedLegacy = "STATE_FAILED"

// Terminal reports whether a transfer's status will not change any more: a terminal state
// (the outcome), or status STATE_COMPLETED (or an older router's STATE_FAILED).
func Terminal(s *track.StatusResponse) bool {
	return track.Terminal(s.State) || s.Status == track.StatusCompleted || s.Status == statusFailedLegacy
}

// follow reads GET /v2/tx/status/stream, passing each status to seen, and returns the last
// one. ok is false when no stream could be opened (any answer but a 200 event stream): the
// caller polls, and the polling reports a real error (an unknown tx) as /v2/tx/status does.
func (c *Client) follow(ctx context.Context, chainID, txHash string, seen func(*track.StatusResponse)) (last *track.StatusResponse, ok bool) {
	q := url.Values{"tx_hash": {txHash}, "chain_id": {chainID}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v2/tx/status/stream?"+q.Encode(), nil)
	if err != nil {
		return nil, false
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := streamClient.Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		return nil, false
	}
	rd := sse.NewReader(resp.Body)
	for {
		ev, err := rd.Next()
		if err != nil {
			return last, true
		}
		if ev.Name != "status" {
			// "error" or "reconnect": the stream is over; the caller decides what next.
			return last, true
		}
		var s track.StatusResponse
		if json.Unmarshal(ev.Data, &s) != nil {
			return last, false
		}
		last = &s
		seen(last)
		if Terminal(last) {
			return last, true
		}
	}
}
