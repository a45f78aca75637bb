package jsonx

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

type kv struct {
	k string
	v any
}

type obj []kv

func (o obj) MarshalJSON() ([]byte, error) {
	return Marshal(len(o), func(i int) (string, any) { return o[i].k, o[i].v })
}

type raw []kv

func (o raw) MarshalJSON() ([]byte, error) {
	return MarshalUnescaped(len(o), func(i int) (string, any) { return o[i].k, o[i].v })
}

func TestMarshal(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"order kept", obj{{"b", 1}, {"a", "two"}, {"c", nil}}, `{"b":1,"a":"two","c":null}`},
		{"value equal to key", obj{{"a", "a"}}, `{"a":"a"}`},
		{"nested", obj{{"outer", obj{{"z", 1}, {"a", []string{"x"}}}}}, `{"outer":{"z":1,"a":["x"]}}`},
		{"empty", obj{}, `{}`},
		{"html escaped", obj{{"q", "<a&b>"}}, `{"q":"\u003ca\u0026b\u003e"}`},
		{"inside a slice", []any{obj{{"y", 2}, {"x", 1}}}, `[{"y":2,"x":1}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.v)
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
	// Without escaping, as the gateway answers; json.Marshal would escape again on top, so
	// the method is called directly, as an Encoder with SetEscapeHTML(false) would.
	got, err := raw{{"q", "<a&b>"}, {"n", raw{{"k", "&"}}}}.MarshalJSON()
	if err != nil || string(got) != `{"q":"<a&b>","n":{"k":"&"}}` {
		t.Errorf("unescaped: %s, %v", got, err)
	}
	if _, err := json.Marshal(obj{{"f", func() {}}}); err == nil {
		t.Error("an unencodable value must fail")
	}
}

// slowObj/slowRaw are obj/raw without JSONObject: nested, they go through json.Marshal as
// before Object existed. fastObj/fastRaw are written in place.
type slowObj []kv

func (o slowObj) MarshalJSON() ([]byte, error) {
	return Marshal(len(o), func(i int) (string, any) { return o[i].k, o[i].v })
}

type slowRaw []kv

func (o slowRaw) MarshalJSON() ([]byte, error) {
	return MarshalUnescaped(len(o), func(i int) (string, any) { return o[i].k, o[i].v })
}

type fastObj []kv

func (o fastObj) MarshalJSON() ([]byte, error) {
	return Marshal(len(o), func(i int) (string, any) { return o[i].k, o[i].v })
}

func (o fastObj) JSONObject() (int, func(int) (string, any), bool) {
	return len(o), func(i int) (string, any) { return o[i].k, o[i].v }, true
}

type fastRaw []kv

func (o fastRaw) MarshalJSON() ([]byte, error) {
	return MarshalUnescaped(len(o), func(i int) (string, any) { return o[i].k, o[i].v })
}

func (o fastRaw) JSONObject() (int, func(int) (string, any), bool) {
	return len(o), func(i int) (string, any) { return o[i].k, o[i].v }, false
}

// tree builds the same nested value twice, with the slow and the fast object types, mixing
// escaped and unescaped objects, []any (nil, empty, nested), typed slices and HTML characters.
func tree(rng *rand.Rand, depth int, fast bool) any {
	leaf := []any{"<a&b>", "plain", 7, nil, true, "\u2028", []string{"<x>"}, map[string]string{"k": "&"}}
	if depth == 0 || rng.IntN(4) == 0 {
		return leaf[rng.IntN(len(leaf))]
	}
	switch rng.IntN(4) {
	case 0, 1:
		n := rng.IntN(4)
		members := make([]kv, n)
		for i := range members {
			members[i] = kv{[]string{"a", "<k>", "z&"}[rng.IntN(3)], tree(rng, depth-1, fast)}
		}
		switch esc := rng.IntN(2) == 0; {
		case fast && esc:
			return fastObj(members)
		case fast:
			return fastRaw(members)
		case esc:
			return slowObj(members)
		default:
			return slowRaw(members)
		}
	case 2:
		if rng.IntN(5) == 0 {
			return []any(nil)
		}
		n := rng.IntN(4)
		out := make([]any, n)
		for i := range out {
			out[i] = tree(rng, depth-1, fast)
		}
		return out
	default:
		return leaf[rng.IntN(len(leaf))]
	}
}

// TestObjectSameBytes: writing Objects in place gives exactly the bytes the json.Marshal
// round trip per level gave, escaped and unescaped, at any nesting.
func TestObjectSameBytes(t *testing.T) {
	for seed := uint64(0); seed < 500; seed++ {
		slowV := tree(rand.New(rand.NewPCG(seed, 1)), 6, false)
		fastV := tree(rand.New(rand.NewPCG(seed, 1)), 6, true)
		for _, esc := range []bool{true, false} {
			mk := Marshal
			if !esc {
				mk = MarshalUnescaped
			}
			slow, err1 := mk(2, func(i int) (string, any) { return []string{"v", "w&"}[i], slowV })
			fast, err2 := mk(2, func(i int) (string, any) { return []string{"v", "w&"}[i], fastV })
			if err1 != nil || err2 != nil || string(slow) != string(fast) {
				t.Fatalf("seed %d escape %v:\nslow %s (%v)\nfast %s (%v)", seed, esc, slow, err1, fast, err2)
			}
			top1, _ := json.Marshal(slowV)
			top2, _ := json.Marshal(fastV)
			if string(top1) != string(top2) {
				t.Fatalf("seed %d top level:\nslow %s\nfast %s", seed, top1, top2)
			}
		}
	}
}
