package cli

import (
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// corsFlags are the CORS settings of both APIs, under rollytics' environment names
// so a rollytics deployment switching over keeps its configuration.
type corsFlags struct {
	Enabled     bool
	Origins     string // comma-separated
	Methods     string
	Headers     string
	Credentials bool
	Expose      string
	MaxAge      int // seconds
}

// corsAnyOrigin is what `rollgate up` serves: a web app on any local port works at once.
var corsAnyOrigin = corsFlags{Enabled: true, Origins: "*"}

func (c *corsFlags) register(f *flags) {
	f.Bool(&c.Enabled, "cors-enabled", false, "answer CORS preflights and add CORS headers, so browser apps on other origins can call the API", "CORS_ENABLED")
	f.String(&c.Origins, "cors-allow-origins", "*", "allowed origins, comma-separated: *, https://app.example.com, *.example.com", "CORS_ALLOW_ORIGINS")
	f.String(&c.Methods, "cors-allow-methods", "", "Access-Control-Allow-Methods, comma-separated (default: the methods the path serves)", "CORS_ALLOW_METHODS")
	f.String(&c.Headers, "cors-allow-headers", "", "Access-Control-Allow-Headers, comma-separated (default: the headers the preflight asks for)", "CORS_ALLOW_HEADERS")
	f.Bool(&c.Credentials, "cors-allow-credentials", false, "Access-Control-Allow-Credentials (ignored when any origin is allowed)", "CORS_ALLOW_CREDENTIALS")
	f.String(&c.Expose, "cors-expose-headers", "", "Access-Control-Expose-Headers, comma-separated", "CORS_EXPOSE_HEADERS")
	f.Int(&c.MaxAge, "cors-max-age", 0, "seconds a browser may cache a preflight answer (0: no Access-Control-Max-Age)", "CORS_MAX_AGE")
}

func (c corsFlags) config() httpapi.CORS {
	return httpapi.CORS{
		Enabled:          c.Enabled,
		AllowOrigins:     splitList(c.Origins),
		AllowMethods:     splitList(c.Methods),
		AllowHeaders:     splitList(c.Headers),
		AllowCredentials: c.Credentials,
		ExposeHeaders:    splitList(c.Expose),
		MaxAge:           time.Duration(c.MaxAge) * time.Second,
	}
}

func (c corsFlags) validate() error {
	if c.MaxAge < 0 {
		return usagef("--cors-max-age (CORS_MAX_AGE) cannot be negative")
	}
	return nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
