package store

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestEVMRangeExplorer: a range read with Explorer serves each EVM tx as the EVM tx items do
// (the receipt with the explorer keys appended inside its braces; a row written before
// migration 0014 as the receipt alone), on the primary key and on an account's edge rows, in
// both orders; without it every row is the receipt alone. Both backends.
func TestEVMRangeExplorer(t *testing.T) {
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		from := make([]byte, 20)
		from[19] = 9
		var bs []BlockBundle
		for h := int64(1); h <= 2; h++ {
			b := BlockBundle{Block: Block{ChainID: "c", Height: h, Hash: []byte{byte(h)}, Time: time.Unix(h, 0).UTC(), TotalFee: []byte("[]")}}
			row := EVMTx{Hash: []byte{byte(h), 1}, Signer: from, Accounts: []TxAccount{{Addr: from, Signer: true}}, JSON: json.RawMessage(fmt.Sprintf(`{"h":%d}`, h))}
			if h == 2 {
				row.Explorer = json.RawMessage(`{"timestamp":"1970-01-01T00:00:02Z","nonce":"0x1","input":"0xé"}`)
			}
			b.Extensions = []ExtensionRows{EVMRows{row}}
			bs = append(bs, b)
		}
		if err := db.WriteBlocks(ctx, bs); err != nil {
			t.Fatal(err)
		}
		receipts := []string{`{"h":1}`, `{"h":2}`}
		spliced := []string{`{"h":1}`, `{"h":2,"timestamp":"1970-01-01T00:00:02Z","nonce":"0x1","input":"0xé"}`}
		for _, q := range []EVMRange{{}, {Account: from}, {Desc: true}, {Account: from, Desc: true, FromHeight: 1, ToHeight: 2}} {
			for _, explorer := range []bool{false, true} {
				q.Explorer, q.Limit = explorer, 10
				got, err := db.EVMTxsInRange(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				want := receipts
				if explorer {
					want = spliced
				}
				if len(got) != 2 {
					t.Fatalf("%+v: %d rows", q, len(got))
				}
				for i := range got {
					k := i
					if q.Desc {
						k = 1 - i
					}
					if string(got[i].JSON) != want[k] {
						t.Errorf("%+v: row %d %s, want %s", q, i, got[i].JSON, want[k])
					}
				}
			}
		}
	})
}
