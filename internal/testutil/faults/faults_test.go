package faults

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

var okJSON = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":-1,"result":{"height":"12","txs":["AAAA","BBBB"]}}`))
})

func fetch(t *testing.T, c *http.Client, url string) (int, []byte, error) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func TestKinds(t *testing.T) {
	cases := []struct {
		kind  Kind
		check func(t *testing.T, status int, body []byte, err error)
	}{
		{Error500, func(t *testing.T, status int, body []byte, err error) {
			if err != nil || status != http.StatusInternalServerError {
				t.Fatalf("status %d err %v", status, err)
			}
		}},
		{Hang, func(t *testing.T, status int, body []byte, err error) {
			var ne interface{ Timeout() bool }
			if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatalf("want a client timeout, got %d %v", status, err)
			}
		}},
		{Close, func(t *testing.T, status int, body []byte, err error) {
			if err == nil {
				t.Fatalf("want a connection error, got %d %s", status, body)
			}
		}},
		{Truncate, func(t *testing.T, status int, body []byte, err error) {
			var v any
			if err != nil || status != http.StatusOK || json.Unmarshal(body, &v) == nil || len(body) == 0 {
				t.Fatalf("want truncated JSON, got %d %q %v", status, body, err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			inj := New(Config{Rate: 1, Kinds: []Kind{c.kind}, Hang: 5 * time.Second})
			srv := httptest.NewServer(inj.Wrap(okJSON))
			defer srv.Close()
			client := &http.Client{Timeout: 200 * time.Millisecond}
			status, body, err := fetch(t, client, srv.URL)
			c.check(t, status, body, err)
			counts, _ := inj.Counts()
			if counts[c.kind] != 1 {
				t.Fatalf("counts %v", counts)
			}
		})
	}
}

func TestShareAndToggle(t *testing.T) {
	inj := New(Config{Rate: 0.3, Seed: 4, Kinds: []Kind{Error500}})
	srv := httptest.NewServer(inj.Wrap(okJSON))
	defer srv.Close()
	const n = 400
	failed := 0
	for i := 0; i < n; i++ {
		status, _, err := fetch(t, srv.Client(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if status == http.StatusInternalServerError {
			failed++
		}
	}
	if failed < n*2/10 || failed > n*4/10 {
		t.Fatalf("%d of %d failed with rate 0.3", failed, n)
	}
	inj.SetEnabled(false)
	for i := 0; i < 50; i++ {
		if status, _, err := fetch(t, srv.Client(), srv.URL); err != nil || status != http.StatusOK {
			t.Fatalf("disabled injector failed a request: %d %v", status, err)
		}
	}
	inj.SetEnabled(true)
	inj.SetRate(1)
	if status, _, _ := fetch(t, srv.Client(), srv.URL); status != http.StatusInternalServerError {
		t.Fatalf("re-enabled injector passed a request: %d", status)
	}
}
