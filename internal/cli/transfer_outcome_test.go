package cli

import (
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/router/track"
)

// TestTransferOutcome: `rollgate transfer` succeeds only on STATE_COMPLETED_SUCCESS; every
// other terminal state fails it although its status is STATE_COMPLETED too.
func TestTransferOutcome(t *testing.T) {
	for _, tc := range []struct {
		state   string
		err     *track.StatusError
		wantErr string // "" for success
	}{
		{track.StateCompletedSuccess, nil, ""},
		{track.StateCompletedError, &track.StatusError{Type: track.StatusErrorTransfer, Message: "packet timed out; refunded"}, "packet timed out; refunded"},
		{track.StateCompletedError, nil, track.StateCompletedError},
		{track.StateAbandoned, &track.StatusError{Type: "STATUS_ERROR_INDEXING", Message: "tx not seen"}, "tx not seen"},
	} {
		err := outcome(&track.StatusResponse{State: tc.state, Status: track.StatusOf(tc.state), Error: tc.err})
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.state, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one naming %q", tc.state, err, tc.wantErr)
		}
	}
}
