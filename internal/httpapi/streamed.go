package httpapi

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
)

// Streamed is a body written as it is produced, for an answer of any length in constant
// memory (an export). It is never cached. Write runs after the 200 and its headers are sent,
// under the request's own context, not RequestTimeout: an export takes as long as it takes,
// and ends when the client goes away. A Write that fails after the first byte aborts the
// connection, so the client sees a broken body rather than a short one that looks whole.
type Streamed struct {
	ContentType string
	// Header are extra response headers (Content-Disposition).
	Header map[string]string
	Write  func(ctx context.Context, w io.Writer) error
}

// streamBuffer is what a Streamed body is written through: a few rows per write to the
// connection, whatever the rows' size.
const streamBuffer = 32 << 10

// stream writes a Streamed answer.
func (s *server) stream(w http.ResponseWriter, r *http.Request, rt Route, st Streamed) int {
	h := w.Header()
	h.Set("Content-Type", st.ContentType)
	h.Set("Cache-Control", "no-store")
	for k, v := range st.Header {
		h.Set(k, v)
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return http.StatusOK
	}
	bw := bufio.NewWriterSize(w, streamBuffer)
	err := st.Write(r.Context(), bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		if !errors.Is(r.Context().Err(), context.Canceled) {
			s.log.Error("streamed answer failed", "method", r.Method, "path", r.URL.Path, "route", rt.Pattern, "err", err)
		}
		panic(http.ErrAbortHandler)
	}
	return http.StatusOK
}

// WantsCSV reports whether an Accept header asks for CSV (text/csv), the export format some
// lists answer in. Such a request bypasses the response cache, whose key does not hold the
// header.
func WantsCSV(accept string) bool { return wantsCSV(accept) }

func wantsCSV(accept string) bool {
	return accept != "" && strings.Contains(strings.ToLower(accept), "text/csv")
}
