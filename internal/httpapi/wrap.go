package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/redact"
)

// wrap is the one place a handler's result becomes a response.
func (s *server) wrap(rt Route) http.Handler {
	cr := &cachedRoute{s: s, rt: rt, rm: s.m.forRoute(rt.Pattern)}
	if rt.Stream != nil {
		if rt.Method() == http.MethodGet && !strings.Contains(rt.Path(), "{") {
			s.streamPaths[rt.Path()] = cr // fasthttp serves these itself (serve.go)
		}
		// A stream's duration is its client's session, not a latency: only its status is counted.
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { cr.rm.count(s.serveStream(w, r, rt)) })
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		status := s.serve(w, r, cr)
		cr.rm.observe(status, time.Since(start))
	})
}

// cachedRoute is what a cached answer remembers of the route that computed it, so that a hit
// is answered before the ServeMux: routing a path with a wildcard (path.Clean, unescaping,
// matching) was over half the CPU of a cached hit in process, and its one allocation.
type cachedRoute struct {
	s  *server // the API that computed it: a Cache shared by two APIs serves each its own
	rt Route
	rm *routeMetrics
}

// serveCached answers r from the cache when it holds a current answer for its path and query,
// exactly as serve would (same headers, metrics, version check); it reports false when the
// request must go through the ServeMux. A given path and query always reach the same route, so
// the route an answer was cached by is the one the ServeMux would pick.
func (s *server) serveCached(w http.ResponseWriter, r *http.Request) bool {
	start := time.Now()
	var kb [maxStackKey]byte
	a, hit := s.cache.get(appendKey(kb[:0], r))
	if !hit || a.route == nil || a.route.s != s {
		return false
	}
	cr := a.route
	status, ok := s.hit(w, r, cr, a)
	if ok {
		cr.rm.observe(status, time.Since(start))
	}
	return ok
}

// hit writes a cached answer if it is current (see current).
func (s *server) hit(w http.ResponseWriter, r *http.Request, cr *cachedRoute, a *answer) (status int, ok bool) {
	if !s.current(r.Context(), cr, a) {
		return 0, false
	}
	s.m.cacheHit.Inc()
	return s.write(w, r, cr.rt, a), true
}

// current reports whether a cached answer may be served as it is: a pinned one always, an
// unpinned one while the API's Version is the one it was computed at (VersionNow when it
// knows, else Version read under the request timeout, as serve reads it). A Version that
// fails or panics says no: the request then goes the long way, where serve answers the
// failure as it always does.
func (s *server) current(parent context.Context, cr *cachedRoute, a *answer) (ok bool) {
	if a.pinned {
		return true
	}
	if !cr.rt.Cache || s.opts.Version == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if s.opts.VersionNow != nil {
		if v, known := s.opts.VersionNow(); known {
			return v == a.version
		}
	}
	ctx := parent
	if s.opts.RequestTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.RequestTimeout)
		defer cancel()
	}
	v, err := s.opts.Version(ctx)
	return err == nil && v == a.version
}

// maxStackKey is the longest cache key looked up without allocating it (a hit on a longer
// path and query still works, through a heap copy).
const maxStackKey = 256

// appendKey appends r's cache key: its path as the ServeMux routes it (escaped, so "a%2Fb" and
// "a/b", which reach different routes, have different keys) and its query. An escaped path has
// no literal '?', so the key names one path and query.
func appendKey(dst []byte, r *http.Request) []byte {
	return append(append(append(dst, r.URL.EscapedPath()...), '?'), r.URL.RawQuery...)
}

// serve answers from the cache when it can, else runs the handler and writes (and perhaps
// caches) its answer; it returns the status written.
func (s *server) serve(w http.ResponseWriter, r *http.Request, cr *cachedRoute) (status int) {
	rt := cr.rt
	defer func() {
		if p := recover(); p != nil {
			if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(p) // a Streamed body that failed midway: net/http drops the connection
			}
			s.m.panics.Inc()
			status = s.fail(w, r, rt, fmt.Errorf("panic in %s: %v", rt.Pattern, p))
		}
	}()
	cacheable := (rt.Cache || rt.CachePinned) && s.cache != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		!wantsCSV(r.Header.Get("Accept"))
	// A CachePinned route keeps nothing tagged with the version (see Route.CachePinned).
	versioned := cacheable && rt.Cache
	var key []byte
	var cached *answer
	var gen uint64
	if cacheable {
		gen = s.cache.generation() // before the handler reads anything
		// The key is built in a stack buffer and looked up without a string copy: a pinned hit
		// is the hottest path there is.
		var kb [maxStackKey]byte
		key = appendKey(kb[:0], r)
		if a, hit := s.cache.get(key); hit {
			if a.pinned {
				s.m.cacheHit.Inc()
				return s.write(w, r, rt, a)
			}
			cached = a
		}
	}
	hr := r
	if s.opts.RequestTimeout > 0 {
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
		defer cancel()
		hr = r.WithContext(ctx)
	}
	var version int64
	versionOK := false
	if cacheable {
		// The version is read before the handler runs: an answer tagged with it is at least
		// that fresh, so serving it while the version holds is never stale.
		if versioned && s.opts.Version != nil {
			if v, err := s.opts.Version(hr.Context()); err == nil {
				version, versionOK = v, true
			}
		}
		if cached != nil && versionOK && cached.version == version {
			s.m.cacheHit.Inc()
			return s.write(w, r, rt, cached)
		}
		s.m.cacheMiss.Inc()
	}
	v, err := rt.Handler(hr)
	if err != nil {
		return s.fail(w, r, rt, err)
	}
	if st, ok := v.(Streamed); ok {
		return s.stream(w, r, rt, st)
	}
	a, err := render(v)
	if err != nil {
		return s.fail(w, r, rt, fmt.Errorf("encode %s: %w", rt.Pattern, err))
	}
	if cacheable && (a.pinned || versionOK) {
		a.version, a.route = version, cr
		kept := a
		if a.pooled {
			// The cache keeps its own copy, exactly sized: the pooled buffer is reused.
			c := *a
			c.body, c.pooled = bytes.Clone(a.body), false
			kept = &c
		}
		s.cache.put(string(key), kept, gen)
	}
	status = s.write(w, r, rt, a)
	if a.pooled {
		releaseBody(a.body)
	}
	return status
}

// render encodes a handler's body.
func render(v any) (*answer, error) {
	a := &answer{contentType: "application/json"}
	if p, ok := v.(Pinned); ok {
		v, a.pinned = p.Body, true
	}
	switch b := v.(type) {
	case Raw:
		a.body = b
	case PooledRaw:
		a.body, a.pooled = b, true
	case Blob:
		a.body, a.contentType = b.Body, b.ContentType
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		a.body = buf.Bytes()
	}
	if a.pinned {
		a.etag = etagOf(a.body)
	}
	a.headers()
	return a, nil
}

// headerValue is a header value shared by every response that sends it. net/http only reads
// the values it writes, and a handler adding to the header appends to a slice whose capacity
// is its length, which copies it.
func headerValue(v string) []string { return []string{v} }

var jsonContentType = headerValue("application/json")

// cacheControl are the Cache-Control values of one API, computed once, as net/http and
// fasthttp (serve.go) take them.
type cacheControl struct {
	noStore, pinned, other    []string
	bNoStore, bPinned, bOther []byte
}

// of is the Cache-Control of an answer of rt, as net/http and as fasthttp take it.
func (cc cacheControl) of(rt Route, a *answer) ([]string, []byte) {
	switch {
	case rt.NoStore:
		return cc.noStore, cc.bNoStore
	case a.pinned:
		return cc.pinned, cc.bPinned
	default:
		return cc.other, cc.bOther
	}
}

func newCacheControl(o Options) cacheControl {
	pinned := "public, max-age=" + strconv.Itoa(int(o.PinnedMaxAge.Seconds()))
	other := "public, max-age=" + strconv.Itoa(int(o.MaxAge.Seconds()))
	return cacheControl{
		noStore: headerValue("no-store"), pinned: headerValue(pinned), other: headerValue(other),
		bNoStore: []byte("no-store"), bPinned: []byte(pinned), bOther: []byte(other),
	}
}

// write sends a success. A pinned answer carries its ETag, and a request that already holds
// it (If-None-Match) gets a 304 without the body. The header values were computed with the
// answer (a cached answer is written without building any).
func (s *server) write(w http.ResponseWriter, r *http.Request, rt Route, a *answer) int {
	h := w.Header()
	h["Content-Type"] = a.hContentType
	h["Cache-Control"], _ = s.cc.of(rt, a)
	if a.etag != "" {
		h["Etag"] = a.hETag
		if etagMatches(r.Header.Get("If-None-Match"), a.etag) {
			w.WriteHeader(http.StatusNotModified)
			return http.StatusNotModified
		}
	}
	h["Content-Length"] = a.hContentLength
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(a.body)
	}
	return http.StatusOK
}

// retryAfter is the Retry-After of a 503, in seconds: about a pool's reconnect after a
// database restart or failover (measured in internal/indexer/replicatest).
const retryAfter = "2"

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
	e := apierr.From(err)
	status := e.Code.HTTPStatus()
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		// Every 503 is weather (a store away, a replica behind, a chain unanswered): tell
		// clients and load balancers when to come back instead of letting them hammer. A
		// caller that knows better (the stream caps) has set its own.
		w.Header().Set("Retry-After", retryAfter)
	}
	apierr.Write(w, r, nil, err)
	if status >= 500 && !e.Expected {
		// The cause may quote an upstream URL with its credentials.
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "route", rt.Pattern, "status", status,
			"err", redact.Text(err.Error()))
	}
	return status
}
