package replaytest

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/httpx"
)

// recorder keeps what Serve reports at cleanup instead of failing the real test.
type recorder struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }
func (r *recorder) cleanup() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestServe(t *testing.T) {
	for _, c := range []struct {
		path   string
		misses int
	}{
		{"/status", 0},
		{"/not/captured", 1},
	} {
		t.Run(c.path, func(t *testing.T) {
			rec := &recorder{TB: t}
			var nopts int
			_, url := Serve(rec, "minievm", func(u string, opts ...httpx.Option) (string, error) {
				nopts = len(opts)
				return u, nil
			})
			resp, err := http.Get(url + c.path)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			rec.cleanup()
			if len(rec.errs) != c.misses || nopts != 2 {
				t.Errorf("errors %v, %d client options", rec.errs, nopts)
			}
		})
	}
}
