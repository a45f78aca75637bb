package api

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/apierr"
)

// request builds a GET with an arbitrary (possibly invalid) path segment and raw query,
// bypassing URL parsing the way a raw HTTP client could.
func request(prefix, segment, rawQuery string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "http://idx.test/", nil)
	req.URL.Path = prefix + segment
	req.URL.RawPath = prefix + url.PathEscape(segment)
	req.URL.RawQuery = rawQuery
	req.RequestURI = req.URL.RequestURI()
	return req
}

// pathPrefixes are the routes with a path parameter (the parameter goes last).
var pathPrefixes = []string{
	"/indexer/block/v1/blocks/",
	"/indexer/tx/v1/txs/by_account/",
	"/indexer/tx/v1/txs/by_height/",
	"/indexer/tx/v1/txs/",
}

// listPaths take the query parameters.
var listPaths = []string{
	"/indexer/block/v1/blocks",
	"/indexer/tx/v1/txs",
	"/indexer/tx/v1/txs/by_account/" + acc1,
	"/indexer/tx/v1/txs/by_height/23",
}

func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder, what string) {
	t.Helper()
	if rec.Code >= 500 {
		t.Fatalf("%s: status %d: %s", what, rec.Code, rec.Body)
	}
	if !json.Valid(rec.Body.Bytes()) {
		t.Fatalf("%s: body is not JSON: %q", what, rec.Body)
	}
	if rec.Code >= 400 {
		var e struct {
			Code    int      `json:"code"`
			Message string   `json:"message"`
			Details []string `json:"details"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Message == "" || e.Details == nil || len(e.Message) > 400 {
			t.Fatalf("%s: bad error body %q", what, rec.Body)
		}
	}
}

func TestHostileInputs(t *testing.T) {
	h := newEVM(testCfg, backends(t)["sqlite"](t), nil, nil)
	long := strings.Repeat("a", 10<<10)
	key := func(s string) string { return url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(s))) }
	type hc struct {
		prefix, segment, query string
		status                 int
	}
	cases := []hc{
		{"/indexer/tx/v1/txs/by_account/", "'; DROP TABLE tx; --", "", 400},
		{"/indexer/tx/v1/txs/by_account/", "0x' OR '1'='1", "", 400},
		{"/indexer/tx/v1/txs/", "1; DROP TABLE tx", "", 400},
		{"/indexer/block/v1/blocks/", "1 OR 1=1", "", 400},
		{"/indexer/tx/v1/txs", "", "msgs=" + url.QueryEscape("' OR 1=1 --"), 200},
		{"/indexer/tx/v1/txs", "", "msgs=%27)%20OR%20(1=1", 200},
		// An integer out of range is a 400 however large (rollytics answered 200 with the default).
		{"/indexer/tx/v1/txs", "", "pagination.limit=99999999999999999999", 400},
		{"/indexer/tx/v1/txs", "", "pagination.limit=99999999999999999999999", 400},
		{"/indexer/block/v1/blocks", "", "pagination.limit=99999999999999999999999", 400},
		{"/indexer/tx/v1/txs", "", "pagination.limit=-99999999999999999999999", 400},
		{"/indexer/tx/v1/txs", "", "pagination.limit=+5", 200},
		{"/indexer/tx/v1/txs", "", "pagination.offset=-99999999999999999999", 400},
		{"/indexer/tx/v1/txs", "", "pagination.limit=-5", 400},
		{"/indexer/tx/v1/txs", "", "pagination.limit=-0", 400},
		{"/indexer/tx/v1/txs", "", "pagination.offset=99999999999999999999", 400},
		{"/indexer/tx/v1/txs", "", "pagination.offset=9223372036854775807", 200},
		{"/indexer/block/v1/blocks", "", "pagination.offset=9223372036854775807&pagination.reverse=false", 200},
		{"/indexer/tx/v1/txs/by_account/" + acc1, "", "pagination.offset=9223372036854775807", 200},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key("9223372036854775807"), 200},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key("99999999999999999999"), 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key(`{"sequence":9223372036854775807}`) + "&pagination.reverse=false", 200},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key(`{"sequence":9223372036854775807}`), 200},
		{"/indexer/block/v1/blocks", "", "pagination.key=" + key(`{"height":9223372036854775807}`) + "&pagination.reverse=false", 200},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key(`{"height":9223372036854775807}`) + "&pagination.reverse=false", 200},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key(`{"sequence":1e400}`), 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key(`{"sequence":1.5}`), 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key(`{"sequence":"3"}`), 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key(`{"sequence":3,"height":2}`), 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key(`{"sequence":3}{}`), 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + key(`[1]`), 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=!!!", 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=abc", 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=eyJzZXF1ZW5jZSI6MzR9_-", 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=%FF%FE", 400},
		{"/indexer/tx/v1/txs", "", "pagination.key=" + long, 400},
		{"/indexer/tx/v1/txs", "", "msgs=%FF%FE", 200},
		{"/indexer/tx/v1/txs", "", "msgs=%00", 200},
		{"/indexer/tx/v1/txs", "", "msgs=a%00b,cosmos.bank.v1beta1.MsgSend", 200},
		{"/indexer/tx/v1/txs", "", "msgs=" + long, 200},
		{"/indexer/tx/v1/txs", "", "msgs=" + strings.Repeat("x,", 101) + "y", 400},
		{"/indexer/tx/v1/txs", "", "pagination.limit=1;DROP", 200},
		{"/indexer/tx/v1/txs", "", "pagination.key=%%%", 400},
		{"/indexer/tx/v1/txs", "", "pagination.limit=%zz", 200},
		{"/indexer/tx/v1/txs/by_account/", "%00", "", 400},
		{"/indexer/tx/v1/txs/by_account/", "\xff\xfe", "", 400},
		{"/indexer/tx/v1/txs/by_account/", "0x" + strings.Repeat("0", 5000) + "1", "", 400},
		{"/indexer/tx/v1/txs/by_account/", "init1" + strings.Repeat("q", 2000), "", 400},
		{"/indexer/tx/v1/txs/", "\xff", "", 400},
		{"/indexer/tx/v1/txs/", "0x", "", 400},
		{"/indexer/tx/v1/txs/", "a/b", "", 400},
		{"/indexer/block/v1/blocks/", "9223372036854775807", "", 404},
		{"/indexer/block/v1/blocks/", "-9223372036854775809", "", 400},
		{"/indexer/block/v1/blocks/", "１２", "", 400},
		{"/indexer/tx/v1/txs/by_height/", "9223372036854775807", "", 200},
		{"/indexer/tx/v1/txs/by_height/", "+5", "", 200},
	}
	for _, p := range pathPrefixes {
		cases = append(cases, hc{p, long, "", 400})
	}
	for _, c := range cases {
		what := c.prefix + c.segment + "?" + c.query
		if len(what) > 120 {
			what = what[:120] + "…"
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, request(c.prefix, c.segment, c.query))
		checkAnswer(t, rec, what)
		if rec.Code != c.status {
			t.Errorf("%s: status %d, want %d: %s", what, rec.Code, c.status, clip(rec.Body.String()))
		}
	}
}

// FuzzParams feeds arbitrary path segments and query strings to every parser and every route:
// the parsers may only fail with a 400-class apierr, the routes only answer JSON below 500.
// Plain `go test` runs the seed corpus; `go test -fuzz=FuzzParams` explores.
func FuzzParams(f *testing.F) {
	seeds := []struct{ seg, q string }{
		{"12", "pagination.limit=2"},
		{acc1, "pagination.key=eyJzZXF1ZW5jZSI6MzJ9&is_signer=true"},
		{"0x" + acc1Hex, "msgs=a,b&msgs=c&pagination.reverse=false"},
		{txSend, "pagination.offset=3&pagination.count_total=false"},
		{"-1", "pagination.key=%%%"},
		{"\xff", "pagination.key=e2JhZCBqc29u"},
		{"", "pagination.limit=&pagination.offset="},
		{"99999999999999999999", "pagination.key=OTk5OTk5OTk5OTk5OTk5OTk5OTk="},
		{"init1", "msgs=%00"},
	}
	for _, s := range seeds {
		f.Add(s.seg, s.q)
	}
	fuzzHandler := newEVM(testCfg, openLoaded(f, "sqlite:"+filepath.Join(f.TempDir(), "idx.db")), nil, nil)
	f.Fuzz(func(t *testing.T, seg, rawQuery string) {
		q := query(rawQuery)
		_, err := pagination(q)
		isBadRequest(t, err)
		_, err = msgsParam(q)
		isBadRequest(t, err)
		_, err = heightParam(seg)
		isBadRequest(t, err)
		_, err = accountParam("init", seg)
		isBadRequest(t, err)
		_, err = hashParam(seg)
		isBadRequest(t, err)
		_, _, err = parseKey(seg)
		isBadRequest(t, err)

		for _, p := range pathPrefixes {
			rec := httptest.NewRecorder()
			fuzzHandler.ServeHTTP(rec, request(p, seg, rawQuery))
			checkAnswer(t, rec, p)
		}
		for _, p := range listPaths {
			rec := httptest.NewRecorder()
			fuzzHandler.ServeHTTP(rec, request(p, "", rawQuery))
			checkAnswer(t, rec, p)
		}
	})
}

func isBadRequest(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.InvalidArgument {
		t.Fatalf("parser error is not a 400: %v", err)
	}
}
