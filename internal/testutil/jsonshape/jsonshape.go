// Package jsonshape compares the structure of JSON documents, for tests that hold the
// devnet's responses against responses captured from real nodes. A Shape is the union over
// many documents of: for every path, the JSON kinds seen (strings told apart by encoding)
// and, for objects, the key sequences seen. Array elements share "<path>[]". Values are
// never compared, only what kind of value sits where and in which key order.
package jsonshape

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

// Options are the comparison rules one suite uses; a Shape compared with another uses the
// real (captured) side's options. The zero value is the strictest.
type Options struct {
	// TypedAny: an object whose first key is "@type" (a proto Any) puts its type in the
	// path of its fields, so each message type is compared with the same type only.
	TypedAny bool
	// Bech32HRP restricts the "bech32" encoding to one human-readable part (plus its
	// valoper/valcons forms); empty accepts any lowercase one.
	Bech32HRP string
	// LowerHex tells 40+ lowercase hex digits ("hex") apart from other strings.
	LowerHex bool
	// BytesMayBeBase64: hex, HEX and coin-looking values fit where the real chain had
	// base64, since base64 of some bytes is all hex digits, or digits then letters.
	BytesMayBeBase64 bool
	// EmptyMeansAnyString: where the real responses only ever had "", any string fits.
	EmptyMeansAnyString bool
}

var (
	re0x       = regexp.MustCompile(`^0x[0-9a-fA-F]*$`)
	reDigits   = regexp.MustCompile(`^-?[0-9]+$`)
	reHEX      = regexp.MustCompile(`^[0-9A-F]{40,}$`)
	reHexLow   = regexp.MustCompile(`^[0-9a-f]{40,}$`)
	reRFC      = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)
	reAddr     = regexp.MustCompile(`^[a-z]+(valoper|valcons)?1[02-9ac-hj-np-z]{38,}$`)
	reAddrData = regexp.MustCompile(`^1[02-9ac-hj-np-z]{38,}$`)
	reBase64   = regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`)
	reCoins    = regexp.MustCompile(`^[0-9]+[a-zA-Z][a-zA-Z0-9/]*(,[0-9]+[a-zA-Z][a-zA-Z0-9/]*)*$`)
)

// Encoding classifies a string value: empty, 0xhex, decimal, HEX, hex (with LowerHex), time,
// bech32, coins, json, base64 or text. The first match wins, in that order.
func (o Options) Encoding(s string) string {
	switch {
	case s == "":
		return "empty"
	case re0x.MatchString(s):
		return "0xhex"
	case reDigits.MatchString(s):
		return "decimal"
	case reHEX.MatchString(s):
		return "HEX"
	case o.LowerHex && reHexLow.MatchString(s):
		return "hex"
	case reRFC.MatchString(s):
		return "time"
	case o.isBech32(s):
		return "bech32"
	case reCoins.MatchString(s):
		return "coins"
	case strings.HasPrefix(s, "{") || strings.HasPrefix(s, "["):
		return "json"
	case len(s) >= 12 && len(s)%4 == 0 && reBase64.MatchString(s):
		return "base64"
	}
	return "text"
}

func (o Options) isBech32(s string) bool {
	if o.Bech32HRP == "" {
		return reAddr.MatchString(s)
	}
	rest, ok := strings.CutPrefix(s, o.Bech32HRP)
	if !ok {
		return false
	}
	if r, ok := strings.CutPrefix(rest, "valoper"); ok {
		rest = r
	} else if r, ok := strings.CutPrefix(rest, "valcons"); ok {
		rest = r
	}
	return reAddrData.MatchString(rest)
}

// Fits says whether a kind a devnet document has is one the real documents had.
func (o Options) Fits(got string, real map[string]bool) bool {
	switch {
	case real[got], got == "null", got == "string:empty":
		return true
	case strings.HasPrefix(got, "string:") && real["string:text"]:
		return true // free text in the real chain: any string is fine
	case o.EmptyMeansAnyString && strings.HasPrefix(got, "string:") && real["string:empty"] && len(real) == 1:
		return true
	case got == "string:decimal" && (real["string:HEX"] || real["string:hex"] || real["string:base64"]):
		return true // short hex/base64 values can be all digits
	case o.BytesMayBeBase64 && (got == "string:hex" || got == "string:HEX" || got == "string:coins") && real["string:base64"]:
		return true
	}
	return false
}

// Shape is the structural summary of documents of one kind.
type Shape struct {
	opts  Options
	kinds map[string]map[string]bool
	keys  map[string]map[string]bool
}

// New returns an empty shape.
func New(o Options) *Shape {
	return &Shape{opts: o, kinds: map[string]map[string]bool{}, keys: map[string]map[string]bool{}}
}

// Of is the shape of docs; a document that is not JSON fails the test.
func Of(t testing.TB, o Options, docs [][]byte) *Shape {
	t.Helper()
	sh := New(o)
	for _, d := range docs {
		if err := sh.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	return sh
}

// Add walks one document, keeping object key order (encoding/json maps lose it).
func (sh *Shape) Add(doc []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	dec.UseNumber()
	if err := sh.walk(dec, "$"); err != nil {
		return fmt.Errorf("decode: %w in %.200s", err, doc)
	}
	return nil
}

// Kinds returns the kinds seen at path (nil if the path never occurred).
func (sh *Shape) Kinds(path string) map[string]bool { return sh.kinds[path] }

func (sh *Shape) mark(path, kind string) {
	if sh.kinds[path] == nil {
		sh.kinds[path] = map[string]bool{}
	}
	sh.kinds[path][kind] = true
}

func (sh *Shape) walk(dec *json.Decoder, path string) error {
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
			k, _ := kt.(string)
			keys = append(keys, k)
			if sh.opts.TypedAny && k == "@type" && len(keys) == 1 {
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
		sh.mark(path, "string:"+sh.opts.Encoding(x))
	}
	return nil
}

// Diff lists how got strays from real, with real's options: paths the real documents never
// had, value kinds they never used, key orders they never produced. Paths below an array
// that was always empty in the real documents are unknown and pass. skip (may be nil)
// exempts paths.
func Diff(name string, real, got *Shape, skip func(path string) bool) []string {
	var out []string
	for _, p := range Sorted(got.kinds) {
		if skip != nil && skip(p) {
			continue
		}
		want, ok := real.kinds[p]
		if !ok {
			if elementUnknown(real, p) {
				continue
			}
			out = append(out, fmt.Sprintf("%s: path %s is not in the real responses", name, p))
			continue
		}
		for _, k := range Sorted(got.kinds[p]) {
			if !real.opts.Fits(k, want) {
				out = append(out, fmt.Sprintf("%s: %s is %s, the real chain has %v", name, p, k, Sorted(want)))
			}
		}
	}
	// A path the real documents had, but never as an object, already failed on its kind.
	for _, p := range Sorted(got.keys) {
		if (skip != nil && skip(p)) || real.keys[p] == nil {
			continue
		}
		for _, seq := range Sorted(got.keys[p]) {
			if !real.keys[p][seq] {
				out = append(out, fmt.Sprintf("%s: %s keys [%s], the real chain has %v", name, p, seq, Sorted(real.keys[p])))
			}
		}
	}
	return out
}

// elementUnknown: some array on the way to p was always empty in the real documents.
func elementUnknown(real *Shape, p string) bool {
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

func anyUnder(sh *Shape, prefix string) bool {
	for q := range sh.kinds {
		if strings.HasPrefix(q, prefix) {
			return true
		}
	}
	return false
}

// Sorted returns a map's keys in order.
func Sorted[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ReadGlob reads the files matching pattern under dir; no match fails the test.
func ReadGlob(t testing.TB, dir, pattern string) [][]byte {
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
