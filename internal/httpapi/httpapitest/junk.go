package httpapitest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// Junk generates raw HTTP/1.1 requests at an API the way a careless or hostile client sends
// them: its routes with wildcards filled by valid samples or by junk (malformed and truncated
// percent-escapes, escaped invalid UTF-8 and NUL bytes, raw control and non-ASCII bytes,
// 20,000-byte segments, dot segments, numbers out of range), query parameters the API reads
// with the same mix, msgs lists of 100 and 101 real type URLs, request lines and headers over
// the limit, junk headers (Last-Event-ID, If-None-Match, Origin, Range...), POST bodies cut,
// garbled or replaced, chunked and unknown transfer codings, wrong and junk methods, HTTP
// versions and request lines. Deterministic for a seed.
type Junk struct {
	Routes []httpapi.Route
	// Samples are valid values by wildcard name ({account} → some accounts of the data set).
	Samples map[string][]string
	// Params are the query parameters the routes read, with valid values to mix in.
	Params map[string][]string
	// Bodies are valid POST bodies to mutate (any route that takes one).
	Bodies []string
	Seed   uint64
}

// Request is one generated request.
type Request struct {
	Method string
	Raw    string
}

// realTypeURL is a long message type URL of a real chain (an ICA controller message, 81
// bytes): msgs lists of it at the documented limit must fit in the transports' header limit.
const realTypeURL = "/ibc.applications.interchain_accounts.controller.v1.MsgRegisterInterchainAccount"

var junkSegments = []string{"%zz", "%", "%F", "%%", "a%2", "%G0", "%FF", "%C3%28", "%00", "a%00b", "%ED%A0%80", "%FE%FF",
	"..", ".", "", "-1", "0", "+5", "99999999999999999999", "9223372036854775807", "-9223372036854775809", "0x", "0x0",
	"１２", "ünï", "\xff\xfe", "'; DROP TABLE tx; --", "a/b", "a%2Fb", "<script>", "null", "{}", "[]", "true",
	"init1", "0x" + strings.Repeat("0", 64), "ZZ", "stream", "%2e%2e", "\x01", "a b", "\t", "%0d%0aX-Injected:%201"}

// segment is a path segment or value: a sample (valid), or junk.
func (j Junk) segment(r *rand.Rand, samples []string) string {
	switch n := r.IntN(10); {
	case n < 4 && len(samples) > 0:
		return samples[r.IntN(len(samples))]
	case n < 7:
		return junkSegments[r.IntN(len(junkSegments))]
	case n < 8:
		// Random bytes, each escaped: any byte value reaches the parsers.
		b := make([]byte, 1+r.IntN(40))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return url.PathEscape(string(b))
	case n < 9:
		return strings.Repeat(string(rune('a'+r.IntN(26))), 1+r.IntN(20000))
	default:
		// A sample with junk spliced in.
		s := "x"
		if len(samples) > 0 {
			s = samples[r.IntN(len(samples))]
		}
		i := r.IntN(len(s) + 1)
		return s[:i] + junkSegments[r.IntN(len(junkSegments))] + s[i:]
	}
}

// Request returns the i-th request.
func (j Junk) Request(i int) Request {
	r := rand.New(rand.NewPCG(j.Seed, uint64(i)))
	rt := j.Routes[r.IntN(len(j.Routes))]
	method := rt.Method()
	switch n := r.IntN(20); {
	case n < 2:
		method = http.MethodHead
	case n < 4:
		method = []string{"PUT", "DELETE", "PATCH", "OPTIONS", "POST", "GET"}[r.IntN(6)]
	case n < 5:
		method = []string{"BREW", "get", "G\x00T", strings.Repeat("M", 300), "CONNECT", "TRACE", "PRI"}[r.IntN(7)]
	}
	// The path: the route's, each wildcard filled; now and then one of no route.
	var path strings.Builder
	p := rt.Path()
	if r.IntN(10) == 0 {
		p = "/" + j.segment(r, nil) + "/" + j.segment(r, nil) + "/status"
	}
	for {
		k := strings.IndexByte(p, '{')
		if k < 0 {
			path.WriteString(p)
			break
		}
		path.WriteString(p[:k])
		end := strings.IndexByte(p[k:], '}')
		name := strings.TrimSuffix(p[k+1:k+end], "...")
		path.WriteString(j.segment(r, j.Samples[name]))
		p = p[k+end+1:]
	}
	if r.IntN(10) == 0 {
		path.WriteString([]string{"/", "//", "/.", "/..", "%", "?", "#frag"}[r.IntN(7)])
	}
	// The query.
	var q []string
	names := make([]string, 0, len(j.Params))
	for k := range j.Params {
		names = append(names, k)
	}
	slices.Sort(names)
	for range r.IntN(5) {
		name := names[r.IntN(len(names))]
		if r.IntN(15) == 0 {
			name = j.segment(r, nil)
		}
		v := j.segment(r, j.Params[name])
		if r.IntN(3) == 0 {
			v = url.QueryEscape(v)
		}
		q = append(q, name+"="+v)
	}
	switch r.IntN(40) {
	case 0:
		q = append(q, "msgs="+strings.TrimSuffix(strings.Repeat(url.QueryEscape(realTypeURL)+",", 100), ","))
	case 1:
		q = append(q, strings.TrimSuffix(strings.Repeat("msgs="+url.QueryEscape(realTypeURL)+"&", 101), "&"))
	case 2:
		q = append(q, "pagination.key="+strings.Repeat("A", 20000))
	}
	target := path.String()
	if len(q) > 0 {
		target += "?" + strings.Join(q, "&")
	}
	proto := "HTTP/1.1"
	switch r.IntN(60) {
	case 0:
		proto = "HTTP/1.0"
	case 1:
		proto = []string{"HTTP/2.0", "HTTP/9.9", "HTTP/1.1x", "http/1.1", "", "HTTP/1.1 extra"}[r.IntN(6)]
	}
	var b strings.Builder
	if r.IntN(100) == 0 {
		b.WriteString([]string{"\r\n", "GARBAGE\r\n", "GET\r\n", "GET  HTTP/1.1\r\n", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n"}[r.IntN(5)])
	} else {
		b.WriteString(method + " " + target + " " + proto + "\r\n")
	}
	if r.IntN(50) != 0 {
		b.WriteString("Host: api.test\r\n")
	}
	for range r.IntN(3) {
		name := []string{"Last-Event-ID", "If-None-Match", "Origin", "Accept-Encoding", "Range", "Cookie", "X-Forwarded-For",
			"Content-Type", "Expect", "Authorization", "Access-Control-Request-Method", "X-" + strconv.Itoa(r.IntN(9))}[r.IntN(12)]
		v := j.segment(r, []string{"5", "0", "1", `"x"`, "*", "https://evil.example", "gzip", "bytes=0-1", "GET", "application/json"})
		if name == "Expect" && r.IntN(2) == 0 {
			v = "100-continue"
		}
		b.WriteString(name + ": " + strings.NewReplacer("\r", "", "\n", "").Replace(v) + "\r\n")
	}
	switch r.IntN(60) {
	case 0:
		b.WriteString("X-Pad: " + strings.Repeat("p", 20000) + "\r\n")
	case 1:
		b.WriteString("no colon here\r\n")
	case 2:
		b.WriteString(" folded: line\r\n")
	}
	// The body: a POST's mutated, now and then one on any method.
	var body string
	if method == http.MethodPost || r.IntN(30) == 0 {
		if len(j.Bodies) > 0 {
			body = j.Bodies[r.IntN(len(j.Bodies))]
		}
		switch r.IntN(6) {
		case 0:
			body = body[:r.IntN(len(body)+1)]
		case 1:
			if k := strings.IndexByte(body, '"'); k >= 0 {
				body = body[:k+1] + j.segment(r, nil) + body[k+1:]
			}
		case 2:
			raw := make([]byte, r.IntN(200))
			for i := range raw {
				raw[i] = byte(r.UintN(256))
			}
			body = string(raw)
		case 3:
			body = `{"amount_in":"` + strings.Repeat("9", 1+r.IntN(5000)) + `"}`
		}
	}
	switch r.IntN(40) {
	case 0:
		b.WriteString("Transfer-Encoding: chunked\r\n\r\n")
		if body != "" {
			b.WriteString(strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n")
		}
		b.WriteString("0\r\n\r\n")
	case 1:
		b.WriteString("Transfer-Encoding: gzip\r\n\r\n")
	default:
		if body != "" || method == http.MethodPost {
			b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
		}
		b.WriteString("\r\n" + body)
	}
	return Request{Method: method, Raw: b.String()}
}

// Tally counts the answers of a Hammer run.
type Tally struct {
	Requests int
	ByStatus map[int]int
	// JSONErrors are the 4xx answers whose body was the JSON error envelope (every one must be).
	JSONErrors int
}

func (t Tally) String() string {
	codes := make([]int, 0, len(t.ByStatus))
	for c := range t.ByStatus {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests, %d JSON error bodies:", t.Requests, t.JSONErrors)
	for _, c := range codes {
		fmt.Fprintf(&b, " %d×%d", t.ByStatus[c], c)
	}
	return b.String()
}

// maxErrorBody bounds an error body: a message quotes what it names clipped to 128 bytes.
const maxErrorBody = 2 << 10

// Hammer sends reqs(0..n-1) to addr (host:port) over a few kept-alive connections and checks
// every answer: below 500; every 4xx the JSON error envelope (code, message, details) of at
// most 2 KiB; every JSON 2xx valid JSON. A stream that opens is closed at once. A request the
// server does not answer at all is a failure too.
func Hammer(t *testing.T, addr string, n, workers int, reqs func(i int) Request) Tally {
	t.Helper()
	var mu sync.Mutex
	tally := Tally{ByStatus: map[int]int{}}
	failures := 0
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if failures++; failures <= 20 {
			t.Errorf(format, args...)
		}
	}
	var wg sync.WaitGroup
	next := make(chan int)
	go func() {
		for i := range n {
			next <- i
		}
		close(next)
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c net.Conn
			var br *bufio.Reader
			defer func() {
				if c != nil {
					c.Close()
				}
			}()
			for i := range next {
				req := reqs(i)
				if c == nil {
					var err error
					if c, err = net.Dial("tcp", addr); err != nil {
						fail("request %d: dial: %v", i, err)
						continue
					}
					br = bufio.NewReader(c)
				}
				_ = c.SetDeadline(time.Now().Add(15 * time.Second))
				status, keep, err := exchange(c, br, req)
				if !keep {
					c.Close()
					c = nil
				}
				mu.Lock()
				tally.Requests++
				if err == nil {
					tally.ByStatus[status]++
					if status >= 400 && status < 500 {
						tally.JSONErrors++
					}
				}
				mu.Unlock()
				if err != nil {
					fail("request %d %.300q: %v", i, req.Raw, err)
				}
			}
		}()
	}
	wg.Wait()
	return tally
}

// exchange writes req and reads its answer; keep says whether the connection can carry the next
// request. err says what was wrong with the answer.
func exchange(c net.Conn, br *bufio.Reader, req Request) (status int, keep bool, err error) {
	if _, err := io.WriteString(c, req.Raw); err != nil {
		return 0, false, fmt.Errorf("write: %w", err)
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: req.Method})
	for err == nil && resp.StatusCode == http.StatusContinue {
		// Expect: 100-continue, the body already sent: the answer follows.
		resp, err = http.ReadResponse(br, &http.Request{Method: req.Method})
	}
	if err != nil {
		return 0, false, fmt.Errorf("no answer: %w", err)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode == http.StatusOK && ct == "text/event-stream" {
		// A stream opened: it would never end. The connection goes first, so that closing the
		// body does not drain it.
		c.Close()
		resp.Body.Close()
		return resp.StatusCode, false, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return resp.StatusCode, false, fmt.Errorf("%d: body: %w", resp.StatusCode, err)
	}
	// After an error the request may not have been read to its end: a fresh connection.
	keep = !resp.Close && resp.StatusCode < 400
	switch {
	case resp.StatusCode >= 500:
		return resp.StatusCode, keep, fmt.Errorf("%d %s: %.300q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	case resp.StatusCode >= 400:
		if ct != "application/json" {
			return resp.StatusCode, keep, fmt.Errorf("%d with Content-Type %q: %.300q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if req.Method == http.MethodHead {
			return resp.StatusCode, keep, nil
		}
		var e struct {
			Code    *int     `json:"code"`
			Message *string  `json:"message"`
			Details []string `json:"details"`
		}
		if json.Unmarshal(body, &e) != nil || e.Code == nil || e.Message == nil || e.Details == nil {
			return resp.StatusCode, keep, fmt.Errorf("%d, not the error envelope: %.300q", resp.StatusCode, body)
		}
		if len(body) > maxErrorBody {
			return resp.StatusCode, keep, fmt.Errorf("%d, a %d-byte error body: %.300q", resp.StatusCode, len(body), body)
		}
	case ct == "application/json" && req.Method != http.MethodHead && resp.StatusCode != http.StatusNotModified && !json.Valid(body):
		return resp.StatusCode, keep, fmt.Errorf("%d, invalid JSON: %.300q", resp.StatusCode, body)
	}
	return resp.StatusCode, keep, nil
}
