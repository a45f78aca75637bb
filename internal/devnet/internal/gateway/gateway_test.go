package gateway

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name   string
		write  func(*httptest.ResponseRecorder)
		status int
		body   string
	}{
		// The captured miniwasm node prints `<` and `>` as they are in its error messages.
		{"error keeps html characters", func(w *httptest.ResponseRecorder) { WriteError(w, 400, 2, "type Msg<T> & co") }, 400,
			`{"code":2, "message":"type Msg<T> & co", "details":[]}`},
		{"json", func(w *httptest.ResponseRecorder) { WriteJSON(w, map[string]any{"uri": "a&b", "n": "1"}) }, 200,
			`{"n":"1","uri":"a&b"}`},
		{"unencodable value is an internal error", func(w *httptest.ResponseRecorder) { WriteJSON(w, func() {}) }, 500,
			`{"code":13, "message":"json: unsupported type: func()", "details":[]}`},
		{"state at a future height", func(w *httptest.ResponseRecorder) {
			WriteStateError(w, fmt.Errorf("open: %w", &sim.CodedError{Codespace: "sdk", Code: 26, Log: "invalid height"}))
		}, 500, `{"code":2, "message":"codespace sdk code 26: invalid height", "details":[]}`},
		{"plain state error", func(w *httptest.ResponseRecorder) { WriteStateError(w, errors.New("boom")) }, 500,
			`{"code":2, "message":"boom", "details":[]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tc.write(rec)
			if rec.Code != tc.status || rec.Body.String() != tc.body || rec.Header().Get("Content-Type") != "application/json" {
				t.Errorf("got %d %s (%s); want %d %s", rec.Code, rec.Body, rec.Header().Get("Content-Type"), tc.status, tc.body)
			}
		})
	}
}
