package evmrpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/capture"
	"github.com/rollgate/rollgate/internal/jsonx"
)

// busyReceipts returns the result of every eth_getBlockReceipts answer of the busy capture.
func busyReceipts(t testing.TB) [][]byte {
	t.Helper()
	dir, err := capture.Dir("../../../testdata/fixtures/minievm-busy.tar.zst")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "evm", "eth_getBlockReceipts", "*.json"))
	if err != nil || len(files) < 700 {
		t.Fatalf("%d answers in %s (%v)", len(files), dir, err)
	}
	var results [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, ok := jsonx.RPCResult(b)
		if !ok {
			t.Fatalf("%s: not a result envelope", f)
		}
		results = append(results, res)
	}
	return results
}

// TestDecodeRawElements checks the split of a result into raw elements against json.Unmarshal
// on every eth_getBlockReceipts answer of the busy capture and on shapes it has none of.
func TestDecodeRawElements(t *testing.T) {
	results := busyReceipts(t)
	for _, s := range []string{`[]`, `[null, {"a":"]"}, 2, "x"]`, ` [ 1 , [2] ] `, `{"a":1}`, `"x"`, `7`} {
		results = append(results, []byte(s))
	}
	receipts := 0
	for _, res := range results {
		var want, got []json.RawMessage
		werr := json.Unmarshal(res, &want)
		gerr := decodeResult("eth_getBlockReceipts", &wireResp{Result: res}, &got)
		if (werr == nil) != (gerr == nil) || (werr != nil && gerr.Error() != "evmrpc eth_getBlockReceipts: decoding result: "+werr.Error()) {
			t.Fatalf("%.200s: error %v, want %v", res, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%.200s: %q, want %q", res, got, want)
		}
		receipts += len(got)
	}
	if receipts < 7000 {
		t.Fatalf("only %d receipts compared", receipts)
	}
	t.Logf("%d results, %d receipts", len(results), receipts)
}

func BenchmarkDecodeRawElements(b *testing.B) {
	results := busyReceipts(b)
	size := 0
	for _, r := range results {
		size += len(r)
	}
	b.Run("decodeResult", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, r := range results {
				var rs []json.RawMessage
				if err := decodeResult("eth_getBlockReceipts", &wireResp{Result: r}, &rs); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Unmarshal", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, r := range results {
				var rs []json.RawMessage
				if err := json.Unmarshal(r, &rs); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
