package testutil

import (
	"net/http"
	"testing"

	"github.com/rollgate/rollgate/internal/httpapi/sse"
)

// SSEClient is an open Server-Sent Events stream as the stream tests read it: the answer
// (closing its body ends the stream from the client's side) and its event reader.
type SSEClient struct {
	Resp *http.Response
	R    *sse.Reader
}

// OpenSSE opens the stream at url as OpenStream does (resuming after lastID when it is not
// empty); the body is closed at cleanup.
func OpenSSE(t testing.TB, url, lastID string) *SSEClient {
	t.Helper()
	resp := OpenStream(t, url, lastID) //nolint:bodyclose // OpenStream closes it at cleanup
	return &SSEClient{Resp: resp, R: sse.NewReader(resp.Body)}
}

// Rest reads the events left until the stream ends: the server ends it or its body is closed.
func (c *SSEClient) Rest() []sse.Event {
	var out []sse.Event
	for {
		ev, err := c.R.Next()
		if err != nil {
			return out
		}
		out = append(out, ev)
	}
}
