package jsonshape

import (
	"slices"
	"strings"
	"testing"
)

var (
	rollup = Options{TypedAny: true, LowerHex: true, BytesMayBeBase64: true}
	evm    = Options{Bech32HRP: "init", EmptyMeansAnyString: true}
)

func diff(t *testing.T, o Options, real, got string, skip func(string) bool) []string {
	t.Helper()
	return Diff("doc", Of(t, o, [][]byte{[]byte(real)}), Of(t, o, [][]byte{[]byte(got)}), skip)
}

// TestDiffCatchesDifferences: each kind of difference the comparison exists to catch fails
// it, under both rule sets, and the same structure with other values passes.
func TestDiffCatchesDifferences(t *testing.T) {
	const h = "0123456789ABCDEF0123456789ABCDEF01234567"
	real := `{"a":"12","b":{"h":"ABCDEF0123456789ABCDEF0123456789ABCDEF01","x":"0x1f"},"c":[{"k":1}],"d":"aGVsbG8gd29ybGQh","m":[{"@type":"/x.MsgA","v":"1"}]}`
	cases := []struct {
		name, doc string
		ok        bool
	}{
		{"same", `{"a":"7","b":{"h":"` + h + `","x":"0x0"},"c":[],"d":"Zm9vYmFyYmF6cXV4","m":[{"@type":"/x.MsgA","v":"2"}]}`, true},
		{"null and empty fit anything", `{"a":null,"b":{"h":"","x":"0x0"},"c":[],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, true},
		{"number instead of string", `{"a":7,"b":{"h":"` + h + `","x":"0x0"},"c":[],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, false},
		{"bool instead of string", `{"a":true,"b":{"h":"` + h + `","x":"0x0"},"c":[],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, false},
		{"object instead of string", `{"a":{},"b":{"h":"` + h + `","x":"0x0"},"c":[],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, false},
		{"array instead of object", `{"a":"7","b":[],"c":[],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, false},
		{"keys reordered", `{"b":{"h":"` + h + `","x":"0x0"},"a":"7","c":[],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, false},
		{"key missing", `{"a":"7","b":{"h":"` + h + `"},"c":[],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, false},
		{"extra key", `{"a":"7","b":{"h":"` + h + `","x":"0x0"},"c":[],"d":"Zm9vYmFyYmF6cXV4","m":[],"e":1}`, false},
		{"base64 instead of HEX", `{"a":"7","b":{"h":"ASNFZ4mrze8BI0VniavN7wEjRWc=","x":"0x0"},"c":[],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, false},
		{"decimal instead of 0x-hex", `{"a":"7","b":{"h":"` + h + `","x":"15"},"c":[],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, false},
		{"time instead of base64", `{"a":"7","b":{"h":"` + h + `","x":"0x0"},"c":[],"d":"2026-11-21T12:00:00Z","m":[]}`, false},
		{"element key renamed", `{"a":"7","b":{"h":"` + h + `","x":"0x0"},"c":[{"K":1}],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, false},
		{"element kind", `{"a":"7","b":{"h":"` + h + `","x":"0x0"},"c":["k"],"d":"Zm9vYmFyYmF6cXV4","m":[]}`, false},
	}
	for _, o := range []struct {
		name string
		opts Options
	}{{"rollup", rollup}, {"evm", evm}} {
		for _, c := range cases {
			t.Run(o.name+"/"+c.name, func(t *testing.T) {
				p := diff(t, o.opts, real, c.doc, nil)
				if (len(p) == 0) != c.ok {
					t.Fatalf("ok=%v, problems %v", c.ok, p)
				}
			})
		}
	}
}

func TestTypedAny(t *testing.T) {
	real := `{"m":[{"@type":"/x.MsgA","v":"1"}]}`
	other := `{"m":[{"@type":"/x.MsgB","v":"2"}]}`
	if p := diff(t, rollup, real, other, nil); len(p) == 0 {
		t.Error("TypedAny: another message type passed")
	}
	if p := diff(t, rollup, real, `{"m":[{"@type":"/x.MsgA","w":"2"}]}`, nil); len(p) == 0 {
		t.Error("TypedAny: other fields of the same type passed")
	}
	if p := diff(t, evm, real, other, nil); len(p) != 0 {
		t.Errorf("without TypedAny the type is a plain string field: %v", p)
	}
}

func TestSkipAndUnknownElements(t *testing.T) {
	real := `{"a":[],"b":{"x":"1"}}`
	if p := diff(t, rollup, real, `{"a":[{"q":[{"z":true}]}],"b":{"x":"1"}}`, nil); len(p) != 0 {
		t.Errorf("elements of an always-empty real array are unknown, not wrong: %v", p)
	}
	got := `{"a":[],"b":{"y":1,"x":"1"}}`
	if p := diff(t, rollup, real, got, nil); len(p) != 2 {
		t.Errorf("want a path and a key order problem, got %v", p)
	}
	if p := diff(t, rollup, real, got, func(p string) bool { return strings.HasPrefix(p, "$.b") }); len(p) != 0 {
		t.Errorf("skipped paths reported: %v", p)
	}
}

func TestEncoding(t *testing.T) {
	cases := []struct {
		in, rollup, evm string
	}{
		{"", "empty", "empty"},
		{"0x1F", "0xhex", "0xhex"},
		{"-12", "decimal", "decimal"},
		{strings.Repeat("AB", 20), "HEX", "HEX"},
		{strings.Repeat("ab", 20), "hex", "base64"}, // without LowerHex: base64 alphabet, length a multiple of 4
		{"2026-11-21T12:00:00.5Z", "time", "time"},
		{"init1wug8sewp6cedgkmrmvhl3lf3tulagm9hnvy8p0rppz9yjw0g4wtq7947m6", "bech32", "bech32"},
		{"initvaloper1wug8sewp6cedgkmrmvhl3lf3tulagm9hnvy8p0rppz9y", "bech32", "bech32"},
		{"cosmos1wug8sewp6cedgkmrmvhl3lf3tulagm9hnvy8p0rppz9yjw0g4wtq", "bech32", "text"},
		{"initvalopervalcons1wug8sewp6cedgkmrmvhl3lf3tulagm9hnvy8p0rp", "bech32", "text"},
		{"10umin,5uusdc", "coins", "coins"},
		{`{"a":1}`, "json", "json"},
		{"aGVsbG8gd29ybGQh", "base64", "base64"},
		{"hello world", "text", "text"},
	}
	for _, c := range cases {
		if got := rollup.Encoding(c.in); got != c.rollup {
			t.Errorf("rollup Encoding(%q) = %s, want %s", c.in, got, c.rollup)
		}
		if got := evm.Encoding(c.in); got != c.evm {
			t.Errorf("evm Encoding(%q) = %s, want %s", c.in, got, c.evm)
		}
	}
}

func TestFits(t *testing.T) {
	set := func(k ...string) map[string]bool {
		m := map[string]bool{}
		for _, s := range k {
			m[s] = true
		}
		return m
	}
	cases := []struct {
		got      string
		real     map[string]bool
		rollup   bool
		evm      bool
		describe string
	}{
		{"string:HEX", set("string:HEX"), true, true, "same kind"},
		{"null", set("object"), true, true, "null anywhere"},
		{"string:empty", set("number"), true, true, "empty string anywhere"},
		{"string:hex", set("string:text"), true, true, "free text takes any string"},
		{"string:hex", set("string:empty"), false, true, "only-empty takes any string (evm)"},
		{"string:hex", set("string:empty", "string:HEX"), false, false, "not only empty"},
		{"string:decimal", set("string:HEX"), true, true, "short HEX reads as decimal"},
		{"string:decimal", set("string:base64"), true, true, "short base64 reads as decimal"},
		{"string:HEX", set("string:base64"), true, false, "base64 reads as HEX (rollup)"},
		{"string:coins", set("string:base64"), true, false, "base64 reads as coins (rollup)"},
		{"string:base64", set("string:HEX"), false, false, "not the other way round"},
		{"number", set("string:decimal"), false, false, "number for string"},
	}
	for _, c := range cases {
		if got := rollup.Fits(c.got, c.real); got != c.rollup {
			t.Errorf("%s: rollup Fits = %v", c.describe, got)
		}
		if got := evm.Fits(c.got, c.real); got != c.evm {
			t.Errorf("%s: evm Fits = %v", c.describe, got)
		}
	}
}

func TestEventKey(t *testing.T) {
	ev := func(typ string, kv ...string) map[string]any {
		var attrs []any
		for i := 0; i+1 < len(kv); i += 2 {
			attrs = append(attrs, map[string]any{"key": kv[i], "value": kv[i+1]})
		}
		return map[string]any{"type": typ, "attributes": attrs}
	}
	cases := []struct {
		ev        map[string]any
		fold      bool
		typ, keys string
	}{
		{ev("transfer", "recipient", "a", "sender", "b", "amount", "1u"), false, "transfer", "recipient,sender,amount"},
		{ev("move", "type_tag", "0x1::coin::DepositEvent", "amount", "1"), false, "move<0x1::coin::DepositEvent>", "type_tag,amount"},
		{ev("evm", "log", "1", "log", "2", "ret", "x", "log", "3"), true, "evm", "log+,ret,log+"},
		{ev("evm", "log", "1", "log", "2"), false, "evm", "log,log"},
	}
	for _, c := range cases {
		typ, keys := EventKey(c.ev, EventOptions{FoldLog: c.fold})
		if typ != c.typ || keys != c.keys {
			t.Errorf("EventKey = %s [%s], want %s [%s]", typ, keys, c.typ, c.keys)
		}
	}
	doc := `{"result":{"txs_results":[{"events":[{"type":"a","attributes":[{"key":"k","value":"v"}]}]},{"events":[{"type":"a","attributes":[{"key":"j","value":"v"}]}]}]}}`
	v := BlockResultVariants(t, [][]byte{[]byte(doc)}, EventOptions{})
	if got := Sorted(v["a"]); !slices.Equal(got, []string{"j", "k"}) {
		t.Errorf("variants of a: %v", got)
	}
}
