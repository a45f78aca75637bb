package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randValue writes a random JSON value with the awkward parts a node's answer may have:
// escaped quotes and backslashes in strings, brackets inside strings, nesting, spaces.
func randValue(r *rand.Rand, b *strings.Builder, depth int) {
	ws := func() {
		if r.IntN(4) == 0 {
			b.WriteString([]string{" ", "\n", "\t ", "\r\n "}[r.IntN(4)])
		}
	}
	k := r.IntN(8)
	if depth > 3 {
		k %= 4
	}
	switch k {
	case 0:
		b.WriteString([]string{"null", "true", "false", "0", "-1.5e3", "12345678901234567890"}[r.IntN(6)])
	case 1, 2:
		s, _ := json.Marshal([]string{`a"b`, `\`, `x\\"y`, `{[}]`, "é\u2028<", "", `"`, `\\`}[r.IntN(8)])
		b.Write(s)
	case 3:
		b.WriteString(`"plain"`)
	case 4, 5:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			randValue(r, b, depth+1)
			ws()
		}
		b.WriteByte(']')
	default:
		b.WriteByte('{')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			fmt.Fprintf(b, `"k%d\"{"`, i)
			ws()
			b.WriteByte(':')
			ws()
			randValue(r, b, depth+1)
		}
		b.WriteByte('}')
	}
}

// TestMembersMatchesEncodingJSON checks Members against a decode into a map of raw members on
// random objects: the same keys, the same value bytes, in order.
func TestMembersMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 5000 {
		var b strings.Builder
		b.WriteString(" {")
		keys := r.IntN(5)
		for i := range keys {
			if i > 0 {
				b.WriteString(" ,\n")
			}
			fmt.Fprintf(&b, `"m%d" :`, i)
			randValue(r, &b, 0)
		}
		b.WriteString("} \n")
		in := []byte(b.String())
		if !json.Valid(in) {
			t.Fatalf("case %d: generator wrote invalid JSON %s", n, in)
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatal(err)
		}
		got := map[string]json.RawMessage{}
		var order []string
		if !Members(in, func(k, v []byte) { got[string(k)] = v; order = append(order, string(k)) }) {
			t.Fatalf("case %d: Members refused %s", n, in)
		}
		if len(got) != len(want) || len(order) != keys {
			t.Fatalf("case %d: %d members, want %d: %s", n, len(got), len(want), in)
		}
		for i, k := range order {
			if k != fmt.Sprintf("m%d", i) || !bytes.Equal(got[k], want[k]) {
				t.Fatalf("case %d: member %q = %s, want %s (in %s)", n, k, got[k], want[k], in)
			}
		}
	}
}

func TestMembersRefuses(t *testing.T) {
	for _, in := range []string{``, `[]`, `"x"`, `{"a":1} x`, `{"a\"":1}`, `{"é":1}`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a":`, `{"a":"x`, `{"a":[1,2}`, `{"a":1,}`} {
		if Members([]byte(in), func(_, _ []byte) {}) {
			t.Errorf("Members(%s) = true, want false", in)
		}
	}
	if !Members([]byte(" { } "), func(_, _ []byte) { t.Error("member of an empty object") }) {
		t.Error("Members refused an empty object")
	}
}

// TestRPCResult checks RPCResult against the envelope decode it replaces: wherever it answers,
// the decode gives the same result and no error; where the decode would differ, it declines.
func TestRPCResult(t *testing.T) {
	type envelope struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	for _, c := range []struct {
		in string
		ok bool
	}{
		{`{"jsonrpc":"2.0","id":-1,"result":{"a":[1,"}"]}}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":null}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":"0x1","error":null}`, true},
		{`{"jsonrpc":"2.0","id":1}`, true},
		{`{"id":"x","result":1,"result":2}`, true},
		{`{"jsonrpc":null,"result":[]}`, true},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32000}}`, false},
		{`{"jsonrpc":"2.0","id":1,"Result":1}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":1,"ERROR":null}`, false},
		{`{"jsonrpc":2,"result":1}`, false},
		{`[{"result":1}]`, false},
	} {
		res, ok := RPCResult([]byte(c.in))
		if ok != c.ok {
			t.Errorf("RPCResult(%s) ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		var env envelope
		if err := json.Unmarshal([]byte(c.in), &env); err != nil || env.Error != nil {
			t.Fatalf("%s: the decode it replaces fails: %v %v", c.in, err, env.Error)
		}
		if !bytes.Equal(res, env.Result) || (res == nil) != (env.Result == nil) {
			t.Errorf("RPCResult(%s) = %q, want %q", c.in, res, env.Result)
		}
	}
}

// BenchmarkRPCResult cuts a block_results-sized result out of its envelope, against the
// envelope decode it replaces.
// blockResultsLike is a /block_results envelope of 2,000 tx results (556 kB).
func blockResultsLike() []byte {
	var sb strings.Builder
	sb.WriteString(`{"jsonrpc":"2.0","id":-1,"result":{"height":"7","txs_results":[`)
	for i := range 2000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"code":0,"data":"EiYKJC9jb3Ntb3MuYmFuay52MWJldGExLk1zZ1NlbmRSZXNwb25zZQ==","log":"","gas_wanted":"200000","gas_used":"84231","events":[{"type":"transfer","attributes":[{"key":"recipient","value":"init1qqqq\"x","index":true},{"key":"amount","value":"100uinit","index":true}]}]}`)
	}
	sb.WriteString(`]}}`)
	return []byte(sb.String())
}

func BenchmarkRPCResult(b *testing.B) {
	body := blockResultsLike()
	b.Run("RPCResult", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, ok := RPCResult(body); !ok {
				b.Fatal("declined")
			}
		}
	})
	b.Run("Unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var env struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(body, &env); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAppendMember rebuilds objects from the members Members gives, dropping one key, and
// wants what encoding/json makes of the original less that key.
func TestAppendMember(t *testing.T) {
	for _, in := range []string{`{}`, `{"a":1}`, ` { "a" : [1, "x\"]"] , "b": {"d": "e\\"}, "drop": 2 } `} {
		obj := []byte{'{'}
		if !Members([]byte(in), func(k, v []byte) {
			if string(k) != "drop" {
				obj = AppendMember(obj, k, v)
			}
		}) {
			t.Fatalf("Members(%s) = false", in)
		}
		obj = append(obj, '}')
		var got, want map[string]any
		if err := json.Unmarshal(obj, &got); err != nil {
			t.Fatalf("%s -> %s: %v", in, obj, err)
		}
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		delete(want, "drop")
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s -> %s: got %v, want %v", in, obj, got, want)
		}
	}
}

// TestRPCAnswer checks RPCAnswer's id against the envelope decode it replaces, as
// TestRPCResult checks the result: same bytes wherever it answers, declining an id in another
// case (which the decode would match).
func TestRPCAnswer(t *testing.T) {
	type envelope struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	for _, c := range []struct {
		in string
		ok bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"a":1}}`, true},
		{`{"jsonrpc":"2.0","id":"x","result":null}`, true},
		{`{"jsonrpc":"2.0","result":1}`, true},
		{`{"jsonrpc":"2.0","id":1,"id":2,"result":1}`, true},
		{`{"jsonrpc":"2.0","id":null,"result":1}`, true},
		{`{"jsonrpc":"2.0","ID":1,"result":1}`, false},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32000}}`, false},
	} {
		id, res, ok := RPCAnswer([]byte(c.in))
		if ok != c.ok {
			t.Errorf("RPCAnswer(%s) ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		var env envelope
		if err := json.Unmarshal([]byte(c.in), &env); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if !bytes.Equal(id, env.ID) || (id == nil) != (env.ID == nil) || !bytes.Equal(res, env.Result) {
			t.Errorf("RPCAnswer(%s) = %q, %q, want %q, %q", c.in, id, res, env.ID, env.Result)
		}
	}
}
