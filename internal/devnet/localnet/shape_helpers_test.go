package localnet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The structural comparison of the devnet's responses with captured real ones. A shape is
// the union over many documents of: for every path, the JSON kinds seen (strings told apart
// by encoding) and, for objects, the key sequences seen. Array elements share "<path>[]",
// and an object whose first key is "@type" (a proto Any) puts its type in the path of its
// fields, so each message or key type is compared with the same type only.

type shape struct {
	kinds map[string]map[string]bool
	keys  map[string]map[string]bool
}

func newShape() *shape {
	return &shape{kinds: map[string]map[string]bool{}, keys: map[string]map[string]bool{}}
}

var (
	re0x     = regexp.MustCompile(`^0x[0-9a-fA-F]*$`)
	reDigits = regexp.MustCompile(`^-?[0-9]+$`)
	reHEX    = regexp.MustCompile(`^[0-9A-F]{40,}$`)
	reHexLow = regexp.MustCompile(`^[0-9a-f]{40,}$`)
	reRFC    = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)
	reAddr   = regexp.MustCompile(`^[a-z]+(valoper|valcons)?1[02-9ac-hj-np-z]{38,}$`)
	reBase64 = regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`)
	reCoinsS = regexp.MustCompile(`^[0-9]+[a-zA-Z][a-zA-Z0-9/]*(,[0-9]+[a-zA-Z][a-zA-Z0-9/]*)*$`)
)

// encoding classifies a string value.
func encoding(s string) string {
	switch {
	case s == "":
		return "empty"
	case re0x.MatchString(s):
		return "0xhex"
	case reDigits.MatchString(s):
		return "decimal"
	case reHEX.MatchString(s):
		return "HEX"
	case reHexLow.MatchString(s):
		return "hex"
	case reRFC.MatchString(s):
		return "time"
	case reAddr.MatchString(s):
		return "bech32"
	case reCoinsS.MatchString(s):
		return "coins"
	case strings.HasPrefix(s, "{") || strings.HasPrefix(s, "["):
		return "json"
	case len(s) >= 12 && len(s)%4 == 0 && reBase64.MatchString(s):
		return "base64"
	}
	return "text"
}

func (sh *shape) mark(path, kind string) {
	if sh.kinds[path] == nil {
		sh.kinds[path] = map[string]bool{}
	}
	sh.kinds[path][kind] = true
}

func (sh *shape) add(t *testing.T, doc []byte) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	dec.UseNumber()
	if err := sh.walk(dec, "$"); err != nil {
		t.Fatalf("decode: %v in %.200s", err, doc)
	}
}

func (sh *shape) walk(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch x := tok.(type) {
	case json.Delim:
		if x == '[' {
			for dec.More() {
				if err := sh.walk(dec, path+"[]"); err != nil {
					return err
				}
			}
			sh.mark(path, "array")
			_, err := dec.Token()
			return err
		}
		var keys []string
		inner := path
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k := kt.(string)
			keys = append(keys, k)
			if k == "@type" && len(keys) == 1 {
				vt, err := dec.Token()
				if err != nil {
					return err
				}
				v, _ := vt.(string)
				sh.mark(path+".@type", "string:type")
				inner = path + "<" + v + ">"
				continue
			}
			if err := sh.walk(dec, inner+"."+k); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		sh.mark(path, "object")
		if sh.keys[inner] == nil {
			sh.keys[inner] = map[string]bool{}
		}
		sh.keys[inner][strings.Join(keys, ",")] = true
	case nil:
		sh.mark(path, "null")
	case bool:
		sh.mark(path, "bool")
	case json.Number:
		sh.mark(path, "number")
	case string:
		sh.mark(path, "string:"+encoding(x))
	}
	return nil
}

// fits says whether a kind the devnet produced is one the real chain produced.
func fits(got string, real map[string]bool) bool {
	switch {
	case real[got], got == "null", got == "string:empty":
		return true
	case strings.HasPrefix(got, "string:") && real["string:text"]:
		return true // free text in the real chain: any string is fine
	case got == "string:decimal" && (real["string:HEX"] || real["string:hex"] || real["string:base64"]):
		return true // short hex/base64 values can be all digits
	case (got == "string:hex" || got == "string:HEX" || got == "string:coins") && real["string:base64"]:
		return true // base64 of some bytes is all hex digits, or digits then letters
	}
	return false
}

// shapeDiff lists how the devnet's shape strays from the real one: paths the real chain
// never had, value kinds it never used, key orders it never produced. skip exempts paths.
func shapeDiff(name string, real, got *shape, skip func(path string) bool) []string {
	var out []string
	var paths []string
	for p := range got.kinds {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if skip != nil && skip(p) {
			continue
		}
		want, ok := real.kinds[p]
		if !ok {
			if elementUnknown(real, p) {
				continue // the real responses only had empty arrays above this path
			}
			out = append(out, fmt.Sprintf("%s: path %s not in the real responses", name, p))
			continue
		}
		for k := range got.kinds[p] {
			if !fits(k, want) {
				out = append(out, fmt.Sprintf("%s: %s is %s, real %v", name, p, k, sorted(want)))
			}
		}
	}
	var objs []string
	for p := range got.keys {
		objs = append(objs, p)
	}
	sort.Strings(objs)
	for _, p := range objs {
		if (skip != nil && skip(p)) || real.keys[p] == nil {
			continue
		}
		for seq := range got.keys[p] {
			if !real.keys[p][seq] {
				out = append(out, fmt.Sprintf("%s: %s keys [%s], real %v", name, p, seq, sorted(real.keys[p])))
			}
		}
	}
	return out
}

// elementUnknown: some array on the way to p was always empty in the real responses.
func elementUnknown(real *shape, p string) bool {
	for i := strings.Index(p, "[]"); i >= 0; {
		arr := p[:i]
		if real.kinds[arr]["array"] && !anyUnder(real, arr+"[]") {
			return true
		}
		j := strings.Index(p[i+2:], "[]")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return false
}

func anyUnder(sh *shape, prefix string) bool {
	for q := range sh.kinds {
		if strings.HasPrefix(q, prefix) {
			return true
		}
	}
	return false
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func shapeOfDocs(t *testing.T, docs [][]byte) *shape {
	t.Helper()
	sh := newShape()
	for _, d := range docs {
		sh.add(t, d)
	}
	return sh
}

func fixtureDocs(t *testing.T, dir, pattern string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures %s in %s", pattern, dir)
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

// eventKey names an event variant: its type, plus the Move type tag for `move` events
// (whose flat attributes depend on it), and its attribute keys in order.
func eventKey(ev map[string]any) (typ, keys string) {
	typ, _ = ev["type"].(string)
	attrs, _ := ev["attributes"].([]any)
	var ks []string
	for _, a := range attrs {
		am, _ := a.(map[string]any)
		k, _ := am["key"].(string)
		if typ == "move" && k == "type_tag" {
			v, _ := am["value"].(string)
			typ = "move<" + v + ">"
		}
		ks = append(ks, k)
	}
	return typ, strings.Join(ks, ",")
}

// txEvents returns the events of every tx result of a /block_results document.
func txEvents(t *testing.T, doc []byte) [][]map[string]any {
	t.Helper()
	var d struct {
		Result struct {
			TxsResults []struct {
				Events []map[string]any `json:"events"`
			} `json:"txs_results"`
		} `json:"result"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	var out [][]map[string]any
	for _, r := range d.Result.TxsResults {
		out = append(out, r.Events)
	}
	return out
}

func TestShapeDiffCatchesDifferences(t *testing.T) {
	real := `{"a":"12","b":{"h":"ABCDEF0123456789ABCDEF0123456789ABCDEF01","x":"0x1f"},"c":[{"k":1}],"m":[{"@type":"/x.MsgA","v":"1"}]}`
	cases := []struct {
		name, doc string
		ok        bool
	}{
		{"same", `{"a":"7","b":{"h":"0123456789ABCDEF0123456789ABCDEF01234567","x":"0x0"},"c":[],"m":[{"@type":"/x.MsgA","v":"2"}]}`, true},
		{"number for string", `{"a":7,"b":{"h":"0123456789ABCDEF0123456789ABCDEF01234567","x":"0x0"},"c":[],"m":[]}`, false},
		{"keys reordered", `{"b":{"h":"0123456789ABCDEF0123456789ABCDEF01234567","x":"0x0"},"a":"7","c":[],"m":[]}`, false},
		{"extra key", `{"a":"7","b":{"h":"0123456789ABCDEF0123456789ABCDEF01234567","x":"0x0"},"c":[],"m":[],"e":1}`, false},
		{"base64 for HEX", `{"a":"7","b":{"h":"ASNFZ4mrze8BI0VniavN7wEjRWc=","x":"0x0"},"c":[],"m":[]}`, false},
		{"decimal for 0x", `{"a":"7","b":{"h":"0123456789ABCDEF0123456789ABCDEF01234567","x":"15"},"c":[],"m":[]}`, false},
		{"other message type", `{"a":"7","b":{"h":"0123456789ABCDEF0123456789ABCDEF01234567","x":"0x0"},"c":[],"m":[{"@type":"/x.MsgB","v":"2"}]}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := shapeDiff(c.name, shapeOfDocs(t, [][]byte{[]byte(real)}), shapeOfDocs(t, [][]byte{[]byte(c.doc)}), nil)
			if (len(p) == 0) != c.ok {
				t.Fatalf("ok=%v, problems %v", c.ok, p)
			}
		})
	}
}
