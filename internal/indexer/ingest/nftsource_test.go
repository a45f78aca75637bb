package ingest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
)

// TestQueryErr: only the chain's verdicts mark a contract not-an-NFT or a URI empty; an
// injected or transient failure must be retried, or a fault would change what is indexed.
func TestQueryErr(t *testing.T) {
	cases := []struct {
		name         string
		err          error
		failed, wait bool
	}{
		{"wasm contract error", &cosmosrest.Error{HTTPStatus: 500, Code: 2, Message: "codespace wasm code 29: …"}, true, false},
		{"move resource missing", &cosmosrest.Error{HTTPStatus: 500, Code: 2, Message: "collections: not found"}, true, false},
		{"bad address", &cosmosrest.Error{HTTPStatus: 400, Code: 3}, true, false},
		{"not found", &cosmosrest.Error{HTTPStatus: 404, Code: 5}, true, false},
		{"internal", &cosmosrest.Error{HTTPStatus: 500, Code: 13, Message: "injected fault: internal error"}, false, false},
		{"unavailable", &cosmosrest.Error{HTTPStatus: 503, Code: 14}, false, false},
		{"plain 404 (proxy)", &cosmosrest.Error{HTTPStatus: 404}, false, false},
		{"future height", &cosmosrest.Error{HTTPStatus: 500, Code: 2,
			Message: "invalid height: requested height 90 but height must not be less than 1 or greater than the current height 80"}, false, true},
		{"transport", fmt.Errorf("dial: connection refused"), false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := queryErr(c.err)
			if errors.Is(got, ErrQueryFailed) != c.failed || errors.Is(got, ErrFutureHeight) != c.wait {
				t.Errorf("queryErr(%v) = %v: failed %v, wait %v", c.err, got, errors.Is(got, ErrQueryFailed), errors.Is(got, ErrFutureHeight))
			}
		})
	}
	if queryErr(nil) != nil {
		t.Error("queryErr(nil) != nil")
	}
}
