package ingest

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFlattenTraces: call trees flatten in pre-order with parent indexes, values re-encoded as
// even-length hex, the top output dropped, failed traces skipped and reverted frames kept.
func TestFlattenTraces(t *testing.T) {
	const (
		a = "0x00000000000000000000000000000000000000aa"
		b = "0x00000000000000000000000000000000000000bb"
		c = "0x00000000000000000000000000000000000000cc"
		h = "0x1111111111111111111111111111111111111111111111111111111111111111"
		g = "0x2222222222222222222222222222222222222222222222222222222222222222"
	)
	cases := []struct {
		name  string
		trace string
		want  []string // the stored JSON of each row, in order
	}{
		{
			name: "CALL → CALL → STATICCALL, then DELEGATECALL and CREATE siblings, one reverted",
			trace: `[{"txHash":"` + strings.ToUpper(h[2:]) + `","result":{"type":"CALL","from":"` + a + `","to":"` + b + `","value":"0x186a0","gas":"0x5208","gasUsed":"0x0","input":"0x12","output":"0xdead",
				"calls":[
				 {"type":"CALL","from":"` + b + `","to":"` + c + `","gas":"0x1","gasUsed":"0x1","input":"0x","output":"0x01",
				  "calls":[{"type":"STATICCALL","from":"` + c + `","to":"` + a + `","gas":"0xabc","gasUsed":"0xa","input":"0x313ce567","output":"0x12"}]},
				 {"type":"DELEGATECALL","from":"` + b + `","to":"` + c + `","gas":"0x2","gasUsed":"0x2","input":"0xab"},
				 {"type":"CREATE","from":"` + b + `","to":"` + c + `","value":"0x0","gas":"0x3","gasUsed":"0x3","input":"0x6080","output":"0x6080"},
				 {"type":"CALL","from":"` + b + `","to":"` + a + `","value":"0x0","gas":"0x4","gasUsed":"0x4","input":"0x","output":"0x08c379a0","error":"execution reverted"}
				]}}]`,
			want: []string{
				`{"height":7,"hash":"` + h + `","parent_index":-1,"index":0,"type":"CALL","from":"` + a + `","to":"` + b + `","input":"0x12","output":"0x","value":"0x0186a0","gas":"0x5208","gasUsed":"0x00"}`,
				`{"height":7,"hash":"` + h + `","parent_index":0,"index":1,"type":"CALL","from":"` + b + `","to":"` + c + `","input":"0x","output":"0x01","value":"0x","gas":"0x01","gasUsed":"0x01"}`,
				`{"height":7,"hash":"` + h + `","parent_index":1,"index":2,"type":"STATICCALL","from":"` + c + `","to":"` + a + `","input":"0x313ce567","output":"0x12","value":"0x","gas":"0x0abc","gasUsed":"0x0a"}`,
				`{"height":7,"hash":"` + h + `","parent_index":0,"index":3,"type":"DELEGATECALL","from":"` + b + `","to":"` + c + `","input":"0xab","output":"0x","value":"0x","gas":"0x02","gasUsed":"0x02"}`,
				`{"height":7,"hash":"` + h + `","parent_index":0,"index":4,"type":"CREATE","from":"` + b + `","to":"` + c + `","input":"0x6080","output":"0x6080","value":"0x00","gas":"0x03","gasUsed":"0x03"}`,
				`{"height":7,"hash":"` + h + `","parent_index":0,"index":5,"type":"CALL","from":"` + b + `","to":"` + a + `","input":"0x","output":"0x08c379a0","value":"0x00","gas":"0x04","gasUsed":"0x04"}`,
			},
		},
		{
			name:  "a failed trace is skipped, the next tx starts again at index 0, a missing to is empty",
			trace: `[{"txHash":"` + h + `","error":"tracing failed"},{"txHash":"` + g + `","result":{"type":"CREATE","from":"` + a + `","gas":"0x10","gasUsed":"0x10","input":"0x"}}]`,
			want: []string{
				`{"height":7,"hash":"` + g + `","parent_index":-1,"index":0,"type":"CREATE","from":"` + a + `","to":"","input":"0x","output":"0x","value":"0x","gas":"0x10","gasUsed":"0x10"}`,
			},
		},
		{name: "no txs", trace: `[]`},
	}
	x := NewAccountExtractor("init")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := x.FlattenTraces(7, json.RawMessage(c.trace))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d rows, want %d", len(got), len(c.want))
			}
			for i, r := range got {
				if string(r.JSON) != c.want[i] {
					t.Errorf("row %d:\n got %s\nwant %s", i, r.JSON, c.want[i])
				}
				var item struct{ From, To string }
				_ = json.Unmarshal(r.JSON, &item)
				if "0x"+hexOf(r.From) != item.From || (r.To == nil) != (item.To == "") {
					t.Errorf("row %d: edge accounts %x/%x do not match from/to %s/%s", i, r.From, r.To, item.From, item.To)
				}
			}
		})
	}
	if _, err := x.FlattenTraces(7, json.RawMessage(`{"not":"a list"}`)); err == nil {
		t.Error("a malformed trace was accepted")
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
