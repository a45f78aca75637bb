package cli

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// accessLog logs one info line per request (--access-log): method, path, status, bytes and
// duration. The query string is left out: it can carry addresses a user did not mean to have
// logged, and the path names the route.
func accessLog(h http.Handler, log *slog.Logger) http.Handler { return accessLogged{h: h, log: log} }

type accessLogged struct {
	h   http.Handler
	log *slog.Logger
}

func (a accessLogged) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := &recorder{ResponseWriter: w, status: http.StatusOK}
	a.h.ServeHTTP(rw, r)
	a.log.Info("http request", "method", r.Method, "path", r.URL.Path, "status", rw.status, "bytes", rw.bytes,
		"duration_ms", float64(time.Since(start).Microseconds())/1000, "remote", r.RemoteAddr)
}

// Rejected implements httpapi.Rejecter: what the transport refused is counted by the API
// behind the log (and logged by the transport, at debug: no request line to print).
func (a accessLogged) Rejected(status int) {
	if r, ok := a.h.(httpapi.Rejecter); ok {
		r.Rejected(status)
	}
}

// recorder notes the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (flush, deadlines).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
