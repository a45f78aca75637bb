package evmrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rollgate/rollgate/internal/jsonx"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestDecodeRawElements checks the split of a result into raw elements against json.Unmarshal
// on every eth_getBlockReceipts answer of the busy capture and on shapes it has none of.
func TestDecodeRawElements(t *testing.T) {
	results := testutil.Answers(t, testutil.Busy, "evm/eth_getBlockReceipts", 700, true)
	for _, s := range []string{`[]`, `[null, {"a":"]"}, 2, "x"]`, ` [ 1 , [2] ] `, `{"a":1}`, `"x"`, `7`} {
		results = append(results, []byte(s))
	}
	receipts := 0
	for _, res := range results {
		var want, got []json.RawMessage
		werr := json.Unmarshal(res, &want)
		if werr != nil {
			// decodeResult says which call's result it could not decode.
			werr = errors.New("evmrpc eth_getBlockReceipts: decoding result: " + werr.Error())
		}
		gerr := decodeResult("eth_getBlockReceipts", &wireResp{Result: res}, &got)
		testutil.SameDecode(t, res, got, want, gerr, werr)
		receipts += len(got)
	}
	if receipts < 7000 {
		t.Fatalf("only %d receipts compared", receipts)
	}
	t.Logf("%d results, %d receipts", len(results), receipts)
}

func BenchmarkDecodeRawElements(b *testing.B) {
	testutil.BenchDecoders(b, testutil.Answers(b, testutil.Busy, "evm/eth_getBlockReceipts", 700, true),
		testutil.Decoder{Name: "decodeResult", Decode: func(r []byte) error {
			var rs []json.RawMessage
			return decodeResult("eth_getBlockReceipts", &wireResp{Result: r}, &rs)
		}},
		testutil.Decoder{Name: "Unmarshal", Decode: func(r []byte) error {
			var rs []json.RawMessage
			return json.Unmarshal(r, &rs)
		}})
}

// TestCutBatchAsDecode checks cutBatch against the decode of the whole batch it stands for:
// the same ids, results and errors wherever it answers.
func TestCutBatchAsDecode(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{`[{"jsonrpc":"2.0","id":1,"result":{"transactions":[{"hash":"0x1"}]}},{"jsonrpc":"2.0","id":2,"result":[{"a":1},{"b":2}]}]`, true},
		{`[{"jsonrpc":"2.0","id":1,"result":null},{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"x"}}]`, true},
		{` [ {"jsonrpc":"2.0","ID":3,"result":"0x1"} ] `, true},
		{`[]`, true},
		{`[1]`, false},
		{`{"jsonrpc":"2.0","id":1,"result":1}`, false},
	} {
		got, ok := cutBatch([]byte(c.in))
		if ok != c.ok {
			t.Errorf("cutBatch(%s) ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		var want []wireResp
		if err := jsonx.Unmarshal([]byte(c.in), &want); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d answers, want %d", c.in, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if !bytes.Equal(bytes.TrimSpace(g.ID), bytes.TrimSpace(w.ID)) || !bytes.Equal(g.Result, w.Result) || (g.Error == nil) != (w.Error == nil) ||
				(g.Error != nil && (g.Error.Code != w.Error.Code || g.Error.Message != w.Error.Message)) {
				t.Errorf("%s: answer %d = %+v, want %+v", c.in, i, g, w)
			}
		}
	}
}
