package evmrpc

import (
	"encoding/json"
	"errors"
	"testing"

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
