package comet

import (
	"encoding/json"
	"testing"

	"github.com/rollgate/rollgate/internal/testutil"
)

// TestBlockResultsDecodeValid checks the split decode against json.Unmarshal on every answer
// of the busy capture and on shapes it has none of.
func TestBlockResultsDecodeValid(t *testing.T) {
	inputs := testutil.Answers(t, testutil.Busy, "comet/block_results", 700, true)
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
		testutil.SameDecode(t, in, got, want, gerr, werr)
		txs += len(got.TxsResults)
	}
	if txs < 7000 {
		t.Fatalf("only %d tx results compared", txs)
	}
	t.Logf("%d answers, %d tx results", len(inputs), txs)
}

func BenchmarkBlockResultsDecode(b *testing.B) {
	testutil.BenchDecoders(b, testutil.Answers(b, testutil.Busy, "comet/block_results", 700, true),
		testutil.Decoder{Name: "decodeValid", Decode: func(in []byte) error {
			var r ResultBlockResults
			return r.decodeValid(in)
		}},
		testutil.Decoder{Name: "Unmarshal", Decode: func(in []byte) error {
			var r ResultBlockResults
			return json.Unmarshal(in, &r)
		}})
}
