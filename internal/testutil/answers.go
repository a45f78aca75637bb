package testutil

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rollgate/rollgate/internal/jsonx"
)

// Answers returns the bodies of the answers a capture recorded under dir (e.g.
// "comet/block_results"), failing unless there are at least least of them; with rpcResult,
// each body's JSON-RPC result instead of its envelope. The decoders' tests and benchmarks run
// on these: real answers have shapes hand-written inputs miss.
func Answers(t testing.TB, capture, dir string, least int, rpcResult bool) [][]byte {
	t.Helper()
	root := Fixture(t, capture)
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.json"))
	if err != nil || len(files) < least {
		t.Fatalf("%d answers in %s (%v)", len(files), filepath.Join(root, dir), err)
	}
	out := make([][]byte, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if rpcResult {
			res, ok := jsonx.RPCResult(b)
			if !ok {
				t.Fatalf("%s: not a result envelope", f)
			}
			b = res
		}
		out = append(out, b)
	}
	return out
}

// SameDecode fails t unless a fast decoder's result for in is encoding/json's and it fails
// where encoding/json fails: got and want are the two results, gerr and werr their errors.
func SameDecode(t testing.TB, in []byte, got, want any, gerr, werr error) {
	t.Helper()
	// Both fail or both succeed; the wording of an error is the decoder's own (jsonx.Unmarshal
	// words its errors unlike encoding/json).
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%.200s: error %v, want %v", in, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200s: decoded %+v, want %+v", in, got, want)
	}
}

// Decoder names one way of decoding an answer, for BenchDecoders.
type Decoder struct {
	Name   string
	Decode func([]byte) error
}

// BenchDecoders runs each decoder over all inputs as a sub-benchmark, the inputs' total size
// being the bytes of one op, so that a fast path and encoding/json compare in MB/s.
func BenchDecoders(b *testing.B, inputs [][]byte, decoders ...Decoder) {
	size := 0
	for _, in := range inputs {
		size += len(in)
	}
	for _, d := range decoders {
		b.Run(d.Name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, in := range inputs {
					if err := d.Decode(in); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
