package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
)

// wrap is the one place a handler's result becomes a response.
func (s *server) wrap(rt Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		status := s.serve(w, r, rt)
		s.m.observe(rt.Pattern, status, time.Since(start))
	})
}

// serve runs the handler and writes its answer; it returns the status written.
func (s *server) serve(w http.ResponseWriter, r *http.Request, rt Route) (status int) {
	defer func() {
		if p := recover(); p != nil {
			s.m.panics.Inc()
			status = s.fail(w, r, rt, fmt.Errorf("panic in %s: %v", rt.Pattern, p))
		}
	}()
	hr := r
	if s.opts.RequestTimeout > 0 {
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
		defer cancel()
		hr = r.WithContext(ctx)
	}
	v, err := rt.Handler(hr)
	if err != nil {
		return s.fail(w, r, rt, err)
	}
	maxAge := s.opts.MaxAge
	if p, ok := v.(Pinned); ok {
		v, maxAge = p.Body, s.opts.PinnedMaxAge
	}
	contentType := "application/json"
	var body []byte
	switch b := v.(type) {
	case Raw:
		body = b
	case Blob:
		body, contentType = b.Body, b.ContentType
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return s.fail(w, r, rt, fmt.Errorf("encode %s: %w", rt.Pattern, err))
		}
		body = buf.Bytes()
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	if rt.NoStore {
		h.Set("Cache-Control", "no-store")
	} else {
		h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(maxAge.Seconds())))
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
	return http.StatusOK
}

// fail writes err as the JSON error body and returns its status. r is the request as the
// client sent it (its context is not the handler's timeout), so a cancelled r means the client
// went away: whatever the handler failed with, that is not a server error, and it is counted
// and logged apart (anyone could otherwise inflate the 5xx rate by hanging up).
func (s *server) fail(w http.ResponseWriter, r *http.Request, rt Route, err error) int {
	if errors.Is(r.Context().Err(), context.Canceled) {
		s.m.disconnects.WithLabelValues(rt.Pattern).Inc()
		s.log.Debug("client went away", "method", r.Method, "path", r.URL.Path, "route", rt.Pattern, "err", err)
		err = &apierr.Error{Code: apierr.Canceled, Message: "request cancelled", Cause: err}
	} else if s.opts.MapError != nil {
		err = s.opts.MapError(err)
	}
	w.Header().Set("Cache-Control", "no-store")
	apierr.Write(w, r, s.log, err)
	return apierr.From(err).Code.HTTPStatus()
}
