package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/testutil"
)

// exportAPI has a Streamed route writing rows rows (failing after half of them when fail is
// set) and a route that refuses, behind a response cache so Serve puts it on fasthttp.
func exportAPI(t testing.TB, rows int) *server {
	t.Helper()
	row := []byte("123456,2026-12-02T00:00:00Z,ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789,send,in,1000\n")
	routes := []Route{
		{Pattern: "GET /export", Handler: func(r *http.Request) (any, error) {
			if r.URL.Query().Get("bad") != "" {
				return nil, apierr.BadRequest("bad export")
			}
			fail := r.URL.Query().Get("fail") != ""
			return Streamed{ContentType: "text/csv; charset=utf-8", Write: func(ctx context.Context, w io.Writer) error {
				for i := 0; i < rows; i++ {
					if fail && i == rows/2 {
						return errors.New("store went away")
					}
					if _, err := w.Write(row); err != nil {
						return err
					}
				}
				return nil
			}}, nil
		}},
	}
	var version atomic.Int64
	h := New(Options{Namespace: "export_test", Cache: NewCache(1 << 20), Version: func(context.Context) (int64, error) { return version.Load(), nil }}, routes)
	return h.(*server)
}

// TestExportUnderFasthttp: a CSV request is answered alike by both transports (status,
// headers, the whole body), a refusal too; an export failing midway is a broken body on both
// (never one that ends cleanly); and under fasthttp a 40 MB export leaves the heap within a
// few MB of where it was (the adaptor held the whole body: a heap grown by the body's size).
func TestExportUnderFasthttp(t *testing.T) {
	const rows = 400_000 // 40.4 MB
	h := exportAPI(t, rows)
	std, _ := start(t, h, false)
	fast, _ := start(t, h, true)
	type answer struct {
		StatusCode int
		Header     http.Header
	}
	get := func(base, path string) (answer, []byte, error) {
		res, err := http.Get(base + path)
		if err != nil {
			return answer{}, nil, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return answer{res.StatusCode, res.Header}, b, err
	}
	for _, path := range []string{"/export?format=csv", "/export?format=csv&bad=1"} {
		a, ab, aerr := get(std, path)
		b, bb, berr := get(fast, path)
		if aerr != nil || berr != nil {
			t.Fatalf("%s: %v, %v", path, aerr, berr)
		}
		if a.StatusCode != b.StatusCode || a.Header.Get("Content-Type") != b.Header.Get("Content-Type") ||
			a.Header.Get("Cache-Control") != b.Header.Get("Cache-Control") || string(ab) != string(bb) {
			t.Errorf("%s: net/http %d %v (%d bytes), fasthttp %d %v (%d bytes)", path, a.StatusCode, a.Header, len(ab), b.StatusCode, b.Header, len(bb))
		}
	}
	for name, base := range map[string]string{"net/http": std, "fasthttp": fast} {
		if _, b, err := get(base, "/export?format=csv&fail=1"); err == nil {
			t.Errorf("%s: a failed export read whole (%d bytes)", name, len(b))
		}
	}
	// The heap while the export streams, sampled every millisecond, against before.
	stop := testutil.HeapPeak()
	res, err := http.Get(fast + "/export?format=csv")
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	before, peak := stop()
	if err != nil || n < rows*100 {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	grown := int64(peak) - int64(before)
	t.Logf("fasthttp: %d MB exported, heap in use %d MB before, %d MB at most while streaming", n>>20, before>>20, peak>>20)
	if grown > 8<<20 {
		t.Errorf("the heap grew by %s while streaming %d MB", fmt.Sprintf("%.1f MB", float64(grown)/(1<<20)), n>>20)
	}
}
