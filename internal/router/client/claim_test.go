package client

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWithdrawalClaim reads an executor's /withdrawal/{sequence} answer into the L1 claim and
// refuses an answer for another sequence or an executor error.
func TestWithdrawalClaim(t *testing.T) {
	// Bytes fields are base64 in the executor's JSON, as Go encodes []byte.
	const answer = `{"sequence":7,"to":"init1to","from":"init1from","amount":{"denom":"uinit","amount":"120"},` +
		`"output_index":3,"bridge_id":2,"withdrawal_proofs":["AQI=","AwQ="],"version":"AQ==","storage_root":"BQY=","last_block_hash":"Bwg="}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/withdrawal/7", "/withdrawal/8": // 8: the executor answers for another sequence
			_, _ = w.Write([]byte(answer))
		default:
			http.Error(w, "not found", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	tests := []struct {
		name, sequence, wantErr string
	}{
		{"claimable", "7", ""},
		{"other_sequence", "8", "answered sequence 7 for 8"},
		{"unknown", "9", "HTTP 404"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := Withdrawal(t.Context(), srv.URL+"/", tc.sequence)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := x.Claim("init1claimer")
			if m.Sender != "init1claimer" || m.BridgeId != 2 || m.OutputIndex != 3 || m.Sequence != 7 || m.From != "init1from" || m.To != "init1to" ||
				m.Amount.Denom != "uinit" || m.Amount.Amount != "120" || len(m.WithdrawalProofs) != 2 || m.WithdrawalProofs[1][1] != 4 ||
				string(m.Version) != "\x01" || string(m.StorageRoot) != "\x05\x06" || string(m.LastBlockHash) != "\x07\x08" {
				t.Errorf("claim %+v", m)
			}
		})
	}
}
