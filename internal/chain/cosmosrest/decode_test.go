package cosmosrest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/capture"
)

// busyTxPages returns every /cosmos/tx/v1beta1/txs/block page of the busy capture.
func busyTxPages(t testing.TB) [][]byte {
	t.Helper()
	dir, err := capture.Dir("../../../testdata/fixtures/minievm-busy.tar.zst")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "rest", "txs_block", "*.json"))
	if err != nil || len(files) < 700 {
		t.Fatalf("%d pages in %s (%v)", len(files), dir, err)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestBlockTxsPageDecodeValid checks the split decode against json.Unmarshal on every page of
// the busy capture and on shapes it has none of.
func TestBlockTxsPageDecodeValid(t *testing.T) {
	inputs := busyTxPages(t)
	for _, s := range []string{
		`{"txs":[],"tx_responses":null,"pagination":{"next_key":null,"total":"0"}}`,
		`{"txs":[{"a":"]"}, "x"],"tx_responses":[{"height":"1"}],"block_id":null,"block":{"h":1},"pagination":{"total":"2"}}`,
		`{"txs":[null,{}]}`,
		`{"TXS":[{}],"txs":[]}`,
		`{"Pagination":{"total":"3"},"txs":[1]}`,
		`{"txs":{}}`,
		`{"txs":[],"pagination":{"total":"x"}}`,
		`{}`,
	} {
		inputs = append(inputs, []byte(s))
	}
	txs := 0
	for _, in := range inputs {
		var want, got blockTxsPage
		werr := json.Unmarshal(in, &want)
		gerr := got.decodeValid(in)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("%.200s: error %v, want %v", in, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%.200s: decoded differently: %+v, want %+v", in, got, want)
		}
		txs += len(got.Txs)
	}
	if txs < 7765 {
		t.Fatalf("only %d txs compared", txs)
	}
	t.Logf("%d pages, %d txs", len(inputs), txs)
}

func BenchmarkBlockTxsPageDecode(b *testing.B) {
	inputs := busyTxPages(b)
	size := 0
	for _, in := range inputs {
		size += len(in)
	}
	b.Run("decodeValid", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, in := range inputs {
				var p blockTxsPage
				if err := p.decodeValid(in); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Unmarshal", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, in := range inputs {
				var p blockTxsPage
				if err := json.Unmarshal(in, &p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
