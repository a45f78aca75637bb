// Package redact takes credentials out of configured URLs and out of text that quotes them
// (errors, log lines, answers). It depends on nothing of the project, so the chain transport,
// both APIs and the price sources share it.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// redacted replaces a secret, as url.URL.Redacted does for a password.
const redacted = "xxxxx"

// URL returns u with its credentials replaced: the whole userinfo (a lone user name is
// often an API key itself) and the values of query parameters whose name says they carry a
// secret (apikey, api_key, key, token, access_token, secret, password, auth, signature...).
// Everything else, order and escaping included, is kept, so the result still names the
// endpoint. Use it wherever a configured URL reaches a response, an error or a log line.
func URL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Opaque != "" {
		// Not a URL we can take apart: still drop anything that looks like userinfo.
		return userinfoRe.ReplaceAllString(u, "${1}"+redacted+"@")
	}
	if p.User != nil {
		p.User = url.User(redacted)
	}
	if p.RawQuery != "" {
		p.RawQuery = redactQuery(p.RawQuery)
	}
	return p.String()
}

// Text redacts every URL inside s (an error message, a log line).
func Text(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlRe.ReplaceAllStringFunc(s, URL)
}

var (
	urlRe      = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>` + "`" + `]+`)
	userinfoRe = regexp.MustCompile(`(://)[^/@\s]*@`)
)

func redactQuery(raw string) string {
	pairs := strings.Split(raw, "&")
	for i, pair := range pairs {
		k, _, hasValue := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if hasValue && secretParam(name) {
			pairs[i] = k + "=" + redacted
		}
	}
	return strings.Join(pairs, "&")
}

// secretWords mark a query parameter as carrying a credential when its name contains one.
var secretWords = []string{"key", "token", "secret", "password", "passwd", "auth", "signature", "credential", "session"}

func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return n == "sig" || n == "pass" || n == "pwd"
}
