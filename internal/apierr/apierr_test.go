package apierr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/textclip"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantBody   string
	}{
		{"bad request", BadRequest("pagination.limit must be between 1 and 1000"), 400,
			`{"code":3,"message":"pagination.limit must be between 1 and 1000","details":[]}`},
		{"not found", NotFoundf("block not found"), 404, `{"code":5,"message":"block not found","details":[]}`},
		{"details and info", BadRequest("no route").WithDetails("NO_ROUTE").WithInfo("try another asset"), 400,
			`{"code":3,"message":"no route","details":["NO_ROUTE"],"info":"try another asset"}`},
		{"wrapped api error keeps its class", fmt.Errorf("handler: %w", NotFoundf("tx not found")), 404,
			`{"code":5,"message":"tx not found","details":[]}`},
		{"internal error hides its cause", errors.New(`pq: syntax error at or near "SELECT"`), 500,
			`{"code":13,"message":"internal error","details":[]}`},
		{"deadline", fmt.Errorf("query: %w", context.DeadlineExceeded), 504,
			`{"code":4,"message":"request timed out","details":[]}`},
		{"client gone", fmt.Errorf("query: %w", context.Canceled), 499,
			`{"code":1,"message":"request cancelled","details":[]}`},
		{"method not allowed", MethodNotAllowed("POST /x: use GET"), 405,
			`{"code":12,"message":"POST /x: use GET","details":["METHOD_NOT_ALLOWED"]}`},
		{"too large", TooLarge(1024).WithDetails("BODY_TOO_LARGE"), 413,
			`{"code":8,"message":"request body exceeds 1024 bytes","details":["BODY_TOO_LARGE"]}`},
		{"unavailable", &Error{Code: Unavailable, Message: "store unavailable"}, 503,
			`{"code":14,"message":"store unavailable","details":[]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Write(rec, httptest.NewRequest(http.MethodGet, "/x", nil), nil, tc.err)
			if rec.Code != tc.wantStatus {
				t.Errorf("status = %d, want %d", rec.Code, tc.wantStatus)
			}
			if got := rec.Body.String(); got != tc.wantBody+"\n" {
				t.Errorf("body = %s, want %s", got, tc.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type = %q", ct)
			}
		})
	}
}

// TestClip: a formatted message clips its long arguments (textclip.Args); a message built
// otherwise is bounded as written.
func TestClip(t *testing.T) {
	e := BadRequest("unknown chain %q: %v", strings.Repeat("x", 70000), errors.New(strings.Repeat("y", 500)))
	if len(e.Message) > 2*textclip.MaxEcho+40 {
		t.Errorf("BadRequest: a %d-byte message", len(e.Message))
	}
	rec := httptest.NewRecorder()
	Write(rec, httptest.NewRequest("GET", "/", nil), nil, &Error{Code: NotFound, Message: strings.Repeat("z", 70000)})
	if rec.Body.Len() > maxMessage+100 {
		t.Errorf("Write: a %d-byte body", rec.Body.Len())
	}
}
