package cosmosrest

import (
	"encoding/json"
	"testing"

	"github.com/rollgate/rollgate/internal/testutil"
)

// TestBlockTxsPageDecodeValid checks the split decode against json.Unmarshal on every page of
// the busy capture and on shapes it has none of.
func TestBlockTxsPageDecodeValid(t *testing.T) {
	inputs := testutil.Answers(t, testutil.Busy, "rest/txs_block", 700, false)
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
		testutil.SameDecode(t, in, got, want, gerr, werr)
		txs += len(got.Txs)
	}
	if txs < 7765 {
		t.Fatalf("only %d txs compared", txs)
	}
	t.Logf("%d pages, %d txs", len(inputs), txs)
}

func BenchmarkBlockTxsPageDecode(b *testing.B) {
	testutil.BenchDecoders(b, testutil.Answers(b, testutil.Busy, "rest/txs_block", 700, false),
		testutil.Decoder{Name: "decodeValid", Decode: func(in []byte) error {
			var p blockTxsPage
			return p.decodeValid(in)
		}},
		testutil.Decoder{Name: "Unmarshal", Decode: func(in []byte) error {
			var p blockTxsPage
			return json.Unmarshal(in, &p)
		}})
}
