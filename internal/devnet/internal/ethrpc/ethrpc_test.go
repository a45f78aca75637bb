package ethrpc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

type req struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

type ans struct {
	ID     json.RawMessage `json:"id"`
	Result string          `json:"result"`
}

func serve(body string) string {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	Serve(w, r, 1<<10, func(q req) ans { return ans{q.ID, q.Method} }, ans{json.RawMessage("null"), "parse error"})
	return w.Body.String()
}

func TestServeOneBatchAndParseError(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"id":1,"method":"a"}`, `{"id":1,"result":"a"}` + "\n"},
		{` [{"id":1,"method":"a"},{"id":"x","method":"b"}]`, `[{"id":1,"result":"a"},{"id":"x","result":"b"}]` + "\n"},
		{`[]`, "[]\n"},
		{`{"id":`, `{"id":null,"result":"parse error"}` + "\n"},
		{`[{"id":1}`, `{"id":null,"result":"parse error"}` + "\n"},
	} {
		if got := serve(c.body); got != c.want {
			t.Errorf("%s: got %q, want %q", c.body, got, c.want)
		}
	}
}

func TestParseFilterAndMatchLog(t *testing.T) {
	a, b := common.HexToAddress("0x01"), common.HexToAddress("0x02")
	t0, t1 := common.HexToHash("0xaa"), common.HexToHash("0xbb")
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	q := func(v any) json.RawMessage { j, _ := json.Marshal(v); return j }

	addrs, topics, bad := ParseFilter(q(a), []json.RawMessage{raw("null"), q([]common.Hash{t0, t1})})
	if bad != "" || len(addrs) != 1 || len(topics) != 2 || topics[0] != nil || len(topics[1]) != 2 {
		t.Fatalf("ParseFilter = %v %v %q", addrs, topics, bad)
	}
	l := &types.Log{Address: a, Topics: []common.Hash{t1, t1}}
	if !MatchLog(l, addrs, topics) {
		t.Error("log with the address and an alternative topic did not match")
	}
	if MatchLog(&types.Log{Address: b, Topics: l.Topics}, addrs, topics) {
		t.Error("log of another address matched")
	}
	if MatchLog(&types.Log{Address: a, Topics: []common.Hash{t1}}, addrs, topics) {
		t.Error("log without the second topic matched")
	}
	if _, _, bad := ParseFilter(raw(`7`), nil); bad != "address filter" {
		t.Errorf("bad address: %q", bad)
	}
	if _, _, bad := ParseFilter(nil, []json.RawMessage{raw(`"x"`)}); bad != "topic filter" {
		t.Errorf("bad topic: %q", bad)
	}
}
