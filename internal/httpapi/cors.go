package httpapi

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// CORS are the cross-origin settings, with rollytics' names and defaults.
type CORS struct {
	// Enabled turns CORS on (CORS_ENABLED, default false).
	Enabled bool
	// AllowOrigins lists the origins browsers may call from (CORS_ALLOW_ORIGINS, default
	// "*"): "*" is any origin, "https://app.example.com" one origin, "https://*.example.com"
	// or "*.example.com" any subdomain of example.com (with that scheme, or any).
	AllowOrigins []string
	// AllowMethods answers a preflight's Access-Control-Allow-Methods; empty means the
	// methods the asked path serves.
	AllowMethods []string
	// AllowHeaders answers Access-Control-Allow-Headers; empty means the headers the
	// preflight asks for.
	AllowHeaders []string
	// AllowCredentials sends Access-Control-Allow-Credentials: true. It is ignored when any
	// origin is allowed: browsers refuse credentials with a wildcard origin.
	AllowCredentials bool
	// ExposeHeaders lists response headers scripts may read beyond the safelisted ones.
	ExposeHeaders []string
	// MaxAge is how long a browser may keep a preflight's answer; zero sends no
	// Access-Control-Max-Age (the browser's default, a few seconds).
	MaxAge time.Duration
}

type cors struct {
	anyOrigin   bool
	exact       []string // lower-case origins
	suffixes    []string // ".example.com" of "*.example.com" patterns
	schemes     []string // the scheme of each suffix pattern ("" = any)
	methods     string
	headers     string
	credentials bool
	expose      string
	fields      []corsField // the headers of an allowed cross-origin request the settings fix
	maxAge      string
}

func newCORS(c CORS) *cors {
	out := &cors{methods: strings.Join(c.AllowMethods, ", "), headers: strings.Join(c.AllowHeaders, ", "),
		expose: strings.Join(c.ExposeHeaders, ", ")}
	origins := c.AllowOrigins
	if len(origins) == 0 {
		origins = []string{"*"}
	}
	for _, o := range origins {
		o = strings.ToLower(strings.TrimSpace(o))
		switch {
		case o == "*":
			out.anyOrigin = true
		case strings.Contains(o, "*."):
			scheme, host, found := strings.Cut(o, "://")
			if !found {
				scheme, host = "", o
			}
			out.schemes = append(out.schemes, scheme)
			out.suffixes = append(out.suffixes, strings.TrimPrefix(host, "*"))
		case o != "":
			out.exact = append(out.exact, strings.TrimSuffix(o, "/"))
		}
	}
	out.credentials = c.AllowCredentials && !out.anyOrigin
	if out.credentials {
		out.fields = append(out.fields, newCORSField("Access-Control-Allow-Credentials", credentials))
	}
	if out.expose != "" {
		out.fields = append(out.fields, newCORSField("Access-Control-Expose-Headers", headerValue(out.expose)))
	}
	if c.MaxAge > 0 {
		out.maxAge = strconv.Itoa(int(c.MaxAge.Seconds()))
	}
	return out
}

// allowOrigin is the Access-Control-Allow-Origin value for origin, "" when it is not allowed.
func (c *cors) allowOrigin(origin string) string {
	if origin == "" {
		return ""
	}
	if c.anyOrigin {
		return "*"
	}
	o := strings.ToLower(origin)
	if slices.Contains(c.exact, o) {
		return origin
	}
	scheme, host, ok := strings.Cut(o, "://")
	if !ok {
		return ""
	}
	for i, suf := range c.suffixes {
		// "*.example.com" is a subdomain, not example.com itself nor evilexample.com.
		if (c.schemes[i] == "" || c.schemes[i] == scheme) && strings.HasSuffix(host, suf) && len(host) > len(suf) {
			return origin
		}
	}
	return ""
}

// Values actual sends on every request, shared (see headerValue): each was an allocation per
// request, cached answers included.
var (
	varyOrigin  = headerValue("Origin")
	anyOrigin   = headerValue("*")
	credentials = headerValue("true")
)

// A corsField is a header whose value the settings fix, in both transports' forms, built once.
type corsField struct {
	name  string   // canonical
	value []string // http.Header's, shared: never written to
	bname []byte   // fasthttp's
	bval  []byte
}

func newCORSField(name string, value []string) corsField {
	return corsField{name: name, value: value, bname: []byte(name), bval: []byte(value[0])}
}

// corsHeader is a response's header in either transport, as writeActual writes it.
type corsHeader interface {
	// addVary adds Origin to Vary.
	addVary()
	// setOrigin sets Access-Control-Allow-Origin to ao ("*" or the request's origin).
	setOrigin(ao string)
	// setField sets a header the settings fix.
	setField(f *corsField)
}

// writeActual adds the headers of a cross-origin request that is not a preflight: the one
// place that decides them for both transports (actual, actualFast).
func (c *cors) writeActual(h corsHeader, origin string) {
	h.addVary()
	ao := c.allowOrigin(origin)
	if ao == "" {
		return
	}
	h.setOrigin(ao)
	for i := range c.fields {
		h.setField(&c.fields[i])
	}
}

// actual is writeActual on a net/http header. The keys are written in their canonical form,
// as Header.Set would.
func (c *cors) actual(h http.Header, r *http.Request) {
	c.writeActual(stdHeader(h), r.Header.Get("Origin"))
}

// actualFast is writeActual for a cached answer written by fasthttp (serve.go), on a fresh
// header.
func (c *cors) actualFast(h *fasthttp.ResponseHeader, origin []byte) {
	c.writeActual((*fastHeader)(h), string(origin))
}

type stdHeader http.Header

func (h stdHeader) addVary() {
	if len(h["Vary"]) == 0 {
		h["Vary"] = varyOrigin
	} else {
		http.Header(h).Add("Vary", "Origin")
	}
}

func (h stdHeader) setOrigin(ao string) {
	if ao == "*" {
		h["Access-Control-Allow-Origin"] = anyOrigin
	} else {
		h["Access-Control-Allow-Origin"] = []string{ao}
	}
}

func (h stdHeader) setField(f *corsField) { h[f.name] = f.value }

type fastHeader fasthttp.ResponseHeader

func (h *fastHeader) addVary() { (*fasthttp.ResponseHeader)(h).SetCanonical(hVary, vOrigin) }

func (h *fastHeader) setOrigin(ao string) {
	(*fasthttp.ResponseHeader)(h).Set("Access-Control-Allow-Origin", ao)
}

func (h *fastHeader) setField(f *corsField) {
	(*fasthttp.ResponseHeader)(h).SetCanonical(f.bname, f.bval)
}

// Names and values fastHeader sets without building them per request.
var (
	hVary   = []byte("Vary")
	vOrigin = []byte("Origin")
)

// preflight adds the headers answering an OPTIONS preflight for a path serving allowed.
func (c *cors) preflight(h http.Header, r *http.Request, allowed []string) {
	h.Add("Vary", "Origin")
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	ao := c.allowOrigin(r.Header.Get("Origin"))
	if ao == "" || r.Header.Get("Access-Control-Request-Method") == "" {
		return // not a preflight, or an origin we do not serve: the browser blocks the call
	}
	h.Set("Access-Control-Allow-Origin", ao)
	methods := c.methods
	if methods == "" {
		methods = strings.Join(allowed, ", ")
	}
	h.Set("Access-Control-Allow-Methods", methods)
	headers := c.headers
	if headers == "" {
		headers = r.Header.Get("Access-Control-Request-Headers")
	}
	if headers != "" {
		h.Set("Access-Control-Allow-Headers", headers)
	}
	if c.credentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	if c.maxAge != "" {
		h.Set("Access-Control-Max-Age", c.maxAge)
	}
}

// CORSHandler puts the CORS settings in front of a handler that is not an API of this
// package (the devnet's chain servers, which a browser wallet calls like a node's): a
// preflight answers 204 with methods as the path's methods, any other request gets the
// headers New's servers add. Disabled settings return next unchanged.
func CORSHandler(c CORS, methods []string, next http.Handler) http.Handler {
	if !c.Enabled {
		return next
	}
	cc := newCORS(c)
	allowed := append(slices.Clone(methods), http.MethodOptions)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			cc.preflight(w.Header(), r, allowed)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		cc.actual(w.Header(), r)
		next.ServeHTTP(w, r)
	})
}
