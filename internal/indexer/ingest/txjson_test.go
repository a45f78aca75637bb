package ingest

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAppendAPITxIsMarshal: the tx JSON written by hand has json.Marshal's bytes, for plain
// values and for every kind that json.Marshal escapes or compacts.
func TestAppendAPITxIsMarshal(t *testing.T) {
	odd := []string{"", "plain", `q"b\s`, "<a>&", "tab\tnl\n\r\b\f\x01\x1f\x7f", "ü €", "\u2028\u2029", "bad\xff\xfe", "\x00"}
	raws := []json.RawMessage{json.RawMessage(`[]`), json.RawMessage(`{"a":[1,2,{"b":"c"}]}`), json.RawMessage(` { "a" : "x y" } `),
		json.RawMessage(`{"h":"<&>"}`), json.RawMessage("{\"u\":\"\u2028\"}"), json.RawMessage(`{"e":"\u00e9ü"}`), json.RawMessage(`null`)}
	for i, s := range odd {
		for j, raw := range raws {
			tx := apiTx{TxHash: s, Height: "12", Codespace: s, Code: uint32(i * 1000), Data: "AB", RawLog: s, Logs: raws[(j+1)%len(raws)],
				Info: s, GasWanted: "1", GasUsed: "2", Tx: raw, Timestamp: s,
				Events: []Event{{Type: s}, {Type: "t", Attributes: []EventAttribute{{Key: s, Value: s, Index: true}, {Key: "k", Value: s}}}, {Type: "e", Attributes: []EventAttribute{}}}}
			if j == 0 {
				tx.Events = nil
			}
			want, err := json.Marshal(tx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendAPITx(nil, &tx)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("string %q raw %s:\n got %s\nwant %s", s, raw, got, want)
			}
		}
	}
	for _, bad := range []json.RawMessage{nil, {}, json.RawMessage(`{"a":`), json.RawMessage(`{}x`)} {
		tx := apiTx{Logs: json.RawMessage(`[]`), Tx: bad}
		want, werr := json.Marshal(tx)
		got, gerr := appendAPITx(nil, &tx)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("raw %q: got %s, %v; want %s, %v", bad, got, gerr, want, werr)
		}
	}
}

// TestInternalTxJSONIsMarshal: an internal tx's JSON written by hand has json.Marshal's bytes.
func TestInternalTxJSONIsMarshal(t *testing.T) {
	for _, s := range []string{"", "0x", "0xab", "CALL", "<&>", "ü\x00\"", "bad\xff"} {
		it := internalTxJSON{Height: 752, Hash: "0x01", ParentIndex: -1, Index: 3, Type: s, From: s, To: "0x", Input: s,
			Output: s, Value: "0x00", Gas: s, GasUsed: s}
		want, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		if got := it.appendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	}
}
