package jsonx

import (
	"encoding/json"
	"math/big"
	"reflect"
	"testing"
)

type hexish []byte

func (h *hexish) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*h = hexish("0x" + s)
	return nil
}

type inner struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

type shapes struct {
	Height  int64           `json:"height,string"`
	Total   uint64          `json:"total,string"`
	Raw     json.RawMessage `json:"raw"`
	Any     any             `json:"any"`
	Hex     hexish          `json:"hex"`
	Ptr     *inner          `json:"ptr"`
	List    []inner         `json:"list"`
	Map     map[string]any  `json:"map"`
	Num     json.Number     `json:"num"`
	Big     *big.Int        `json:"big"`
	Bytes   []byte          `json:"bytes"`
	Mixed   string          `json:"MixedCase"`
	Ignored string          `json:"-"`
}

// TestUnmarshalAsEncodingJSON: jsonx.Unmarshal decodes what encoding/json decodes, to the same
// values, and refuses what it refuses — on the shapes the chains' answers use.
func TestUnmarshalAsEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"height":"42","total":"7","raw":{"x":[1,2]},"any":[1,"a",null,true,{"k":2.5}],"hex":"ab"}`,
		`{"ptr":{"a":1,"b":"x"},"list":[{"a":2},{"a":3,"b":""}],"map":{"a":1,"b":[{}]}}`,
		`{"num":12345678901234567890,"big":123456789012345678901234567890,"bytes":"AQID"}`,
		`{"mixedcase":"lower","MIXEDCASE":"upper"}`,
		`{"a":1,"height":"1","height":"2"}`,
		`{"ptr":null,"list":null,"map":null,"raw":null,"any":null}`,
		`{"any":1e400}`,
		`{"b":"\ud800 bad surrogate","any":"\u00e9t\u00e9 \"q\" \\ /"}`,
		"{\"any\":\"\xff\xfe invalid utf-8\"}",
		`{"unknown":{"deep":[1,2,{"x":null}]},"height":"5"}`,
		`{"height":"x"}`,
		`{"height":5}`,
		`{"total":"-1"}`,
		`{"list":{}}`,
		`{"ptr":{"a":"1"}}`,
		`{"raw":}`,
		`{"any":[1,2}`,
		`[1,2]`,
		`null`,
		``,
		`{"hex":5}`,
	} {
		var want, got shapes
		werr := json.Unmarshal([]byte(in), &want)
		gerr := Unmarshal([]byte(in), &got)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: error %v, encoding/json %v", in, gerr, werr)
			continue
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got  %+v\n want %+v", in, got, want)
		}
	}
}
