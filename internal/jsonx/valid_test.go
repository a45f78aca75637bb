package jsonx

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

var validCases = []string{
	``, ` `, `0`, `-0`, `-`, `01`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`, `-12.5e+3`, `1.e3`, `.5`, `+1`,
	`true`, `tru`, `truex`, `false`, `null`, `nul`, `nulll`, `"`, `""`, `"a`, `"\"`, `"\\"`,
	`"\u00e9"`, `"\u00G9"`, `"\u00e"`, `"\x"`, `"\/\b\f\n\r\t"`, "\"\x01\"", "\"\x7f\xff\xfe\"",
	`{}`, `{ }`, `[]`, `[ ]`, `{"a":1}`, `{"a" : [1, 2 , {"b":null}] }`, `{"a":1,}`, `[1,]`,
	`[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{1:2}`, `[1 2]`, `{"a":1 "b":2}`, `[}`, `{]`, `[[[]]]`,
	`[[]`, `[]]`, `{}{}`, `{} x`, " \t\r\n[1]\n ", "\v1", `[1,2,3]`, `"a" "b"`, `1 2`,
	`{"a":{"b":{"c":[true,false,null,"x",-1.5e-9]}}}`, `[-]`, `[01]`, `[1.]`, `{"a":-}`,
}

func TestValidCases(t *testing.T) {
	for _, c := range validCases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid %v", c, got, want)
		}
	}
}

func TestValidDepth(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, open := range []string{"[", "{\"k\":["} {
			close := map[string]string{"[": "]", "{\"k\":[": "]}"}[open]
			for _, inner := range []string{"", "[]", "{}", "1"} {
				in := []byte(strings.Repeat(open, n) + inner + strings.Repeat(close, n))
				if got, want := Valid(in), json.Valid(in); got != want {
					t.Errorf("depth %d %s…%s…: Valid %v, json.Valid %v", n, open, inner, got, want)
				}
			}
		}
	}
}

// TestValidMutations compares Valid with json.Valid on random documents and on each with a
// few bytes deleted, doubled or replaced by JSON's significant bytes.
func TestValidMutations(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "{}[]\":,\\ \t\n-+.0123456789eEtrufalsnx\x00\x1f\x80/u"
	valid := 0
	for range 20000 {
		var sb strings.Builder
		randValue(r, &sb, 0)
		b := []byte(sb.String())
		for range r.IntN(3) {
			if len(b) == 0 {
				break
			}
			p := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				b = append(b[:p:p], b[p+1:]...)
			case 1:
				b = append(b[:p+1:p+1], b[p:]...)
			default:
				b[p] = alphabet[r.IntN(len(alphabet))]
			}
		}
		want := json.Valid(b)
		if got := Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", b, got, want)
		}
		if want {
			valid++
		}
	}
	if valid < 5000 || valid > 19000 {
		t.Fatalf("%d of 20000 mutated documents valid: the test is not exercising both answers", valid)
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", b, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	body := blockResultsLike()
	b.Run("jsonx", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if !Valid(body) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if !json.Valid(body) {
				b.Fatal("invalid")
			}
		}
	})
}
