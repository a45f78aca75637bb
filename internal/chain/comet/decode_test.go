package comet

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/capture"
	"github.com/rollgate/rollgate/internal/jsonx"
)

// busyBlockResults returns the results of every /block_results answer of the busy capture.
func busyBlockResults(t testing.TB) [][]byte {
	t.Helper()
	dir, err := capture.Dir("../../../testdata/fixtures/minievm-busy.tar.zst")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "comet", "block_results", "*.json"))
	if err != nil || len(files) < 700 {
		t.Fatalf("%d block_results answers in %s (%v)", len(files), dir, err)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, ok := jsonx.RPCResult(b)
		if !ok {
			t.Fatalf("%s: not a result envelope", f)
		}
		out = append(out, res)
	}
	return out
}

// TestBlockResultsDecodeValid checks the split decode against json.Unmarshal on every answer
// of the busy capture and on shapes it has none of.
func TestBlockResultsDecodeValid(t *testing.T) {
	inputs := busyBlockResults(t)
	txs := 0
	for _, s := range []string{
		`{"height":"3","txs_results":[],"app_hash":"AQI="}`,
		`{"height":"3","txs_results":[null,{"code":1,"events":[{"type":"a","attributes":[{"key":"k","value":"]\"[","index":true}]}]}]}`,
		`{"txs_results":[{"code":1}],"Txs_Results":null}`,
		`{"height":"3"}`,
		`{"height":"x","txs_results":[{"code":1}]}`,
		`{"height":"3","txs_results":[{"code":"x"}]}`,
		`{"height":"3","txs_results":{}}`,
	} {
		inputs = append(inputs, []byte(s))
	}
	for _, in := range inputs {
		var want, got ResultBlockResults
		werr := json.Unmarshal(in, &want)
		gerr := got.decodeValid(in)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("%.200s: error %v, want %v", in, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%.200s: decoded differently", in)
		}
		txs += len(got.TxsResults)
	}
	if txs < 7000 {
		t.Fatalf("only %d tx results compared", txs)
	}
	t.Logf("%d answers, %d tx results", len(inputs), txs)
}

func BenchmarkBlockResultsDecode(b *testing.B) {
	inputs := busyBlockResults(b)
	size := 0
	for _, in := range inputs {
		size += len(in)
	}
	b.Run("decodeValid", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, in := range inputs {
				var r ResultBlockResults
				if err := r.decodeValid(in); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Unmarshal", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, in := range inputs {
				var r ResultBlockResults
				if err := json.Unmarshal(in, &r); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
