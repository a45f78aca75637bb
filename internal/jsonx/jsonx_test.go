package jsonx

import (
	"encoding/json"
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
