package testutil

import (
	"io"
	"net/http"
	"testing"
)

// Do sends req with http.DefaultClient and returns the answer's status, Content-Type and
// body; a request that gets no answer fails t.
func Do(t testing.TB, req *http.Request) (status int, contentType string, body []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// Get is Do of a GET of url.
func Get(t testing.TB, url string) (status int, contentType string, body []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Do(t, req)
}

// OpenStream opens a Server-Sent Events stream with GET, resuming after lastID when it is not
// empty (Last-Event-ID), and fails t unless the answer is 200; the body is closed at cleanup.
func OpenStream(t testing.TB, url, lastID string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return resp
}
