package opinit

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// TestOutputsPagination: the outputs list pages as the SDK's CollectionPaginate does
// (limit, offset, key, reverse, count_total) over the retained outputs, also when the oldest
// are forgotten; bad pagination is a 400 with the gateway's message.
func TestOutputsPagination(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	serve := func(src fakeWithdrawals, query string) (int, string, []string, *string, string) {
		h := NewHost(HostConfig{Bridges: []Bridge{{ID: 1}}, Withdrawals: src})
		mux := http.NewServeMux()
		h.Routes(mux, func(*http.Request) (sim.Query, error) { return nil, nil })
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest("GET", "/opinit/ophost/v1/bridges/1/outputs"+query, nil))
		var got struct {
			OutputProposals []struct {
				BridgeID       string `json:"bridge_id"`
				OutputIndex    string `json:"output_index"`
				OutputProposal struct {
					OutputRoot    []byte `json:"output_root"`
					L1BlockTime   string `json:"l1_block_time"`
					L2BlockNumber string `json:"l2_block_number"`
				} `json:"output_proposal"`
			} `json:"output_proposals"`
			Pagination struct {
				NextKey *string `json:"next_key"`
				Total   string
			}
		}
		_ = json.Unmarshal(w.Body.Bytes(), &got)
		var idx []string
		for _, o := range got.OutputProposals {
			if o.BridgeID != "1" || len(o.OutputProposal.OutputRoot) != 32 || o.OutputProposal.L1BlockTime == "" {
				t.Errorf("entry %+v", o)
			}
			idx = append(idx, o.OutputIndex)
		}
		return w.Code, w.Body.String(), idx, got.Pagination.NextKey, got.Pagination.Total
	}
	all, forgot, none := fakeWithdrawals{1, 5, t0}, fakeWithdrawals{3, 7, t0}, fakeWithdrawals{1, 0, t0}
	key4 := "AAAAAAAAAAQ=" // big-endian 4
	for _, c := range []struct {
		name  string
		src   fakeWithdrawals
		query string
		want  string // comma-joined output indexes
		next  string // "" for null
		total string
	}{
		{"all", all, "", "1,2,3,4,5", "", "0"},
		{"latest, as InterwovenKit asks", all, "?pagination.reverse=true&pagination.limit=1", "5", "AAAAAAAAAAQ=", "0"},
		{"limit", all, "?pagination.limit=2&pagination.count_total=true", "1,2", "AAAAAAAAAAM=", "5"},
		{"offset", all, "?pagination.offset=3", "4,5", "", "0"},
		{"reverse offset", all, "?pagination.reverse=true&pagination.offset=1&pagination.limit=2", "4,3", "AAAAAAAAAAI=", "0"},
		{"key", all, "?pagination.key=" + key4, "4,5", "", "0"},
		{"reverse key", all, "?pagination.reverse=true&pagination.key=" + key4, "4,3,2,1", "", "0"},
		{"oldest forgotten", forgot, "?pagination.count_total=true", "3,4,5,6,7", "", "5"},
		{"oldest forgotten, reverse", forgot, "?pagination.reverse=true&pagination.limit=10", "7,6,5,4,3", "", "0"},
		{"none", none, "?pagination.reverse=true&pagination.limit=1", "", "", "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body, idx, next, total := serve(c.src, c.query)
			gotNext := ""
			if next != nil {
				gotNext = *next
			}
			if code != 200 || strings.Join(idx, ",") != c.want || gotNext != c.next || total != c.total {
				t.Errorf("%d %s: outputs %v next %q total %s; want %s next %q total %s", code, body, idx, gotNext, total, c.want, c.next, c.total)
			}
		})
	}
	for _, q := range []string{"?pagination.limit=x", "?pagination.reverse=maybe", "?pagination.key=!!!!", "?pagination.key=AAAA", "?pagination.key=" + key4 + "&pagination.offset=1"} {
		if code, body, _, _, _ := serve(all, q); code != 400 || !strings.Contains(body, `"code":3`) {
			t.Errorf("%s: %d %s", q, code, body)
		}
	}
	if code, body, _, _, _ := serve(all, ""); !strings.HasPrefix(body, `{"output_proposals":[{"bridge_id":"1","output_index":"1","output_proposal":{"output_root":"`) || code != 200 {
		t.Errorf("shape: %s", body)
	}
}
