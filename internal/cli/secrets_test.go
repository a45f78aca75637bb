package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/testutil"
)

// The credentials TestNoSecretLeaves plants; none may appear in any answer or log line.
var secrets = []string{"alice", "hunter2", "S3CRETKEY", "T0KENVAL", "K3YVAL", "bobpw"}

// keyedUpstream answers every call with HTTP 500 (so errors carrying URLs are produced and
// retried) and records which credentials reached it.
type keyedUpstream struct {
	mu  sync.Mutex
	saw map[string]bool
}

func (u *keyedUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	for _, k := range []string{"apikey", "token"} {
		if v := r.URL.Query().Get(k); v != "" {
			u.saw[k+"="+v] = true
		}
	}
	if user, pass, ok := r.BasicAuth(); ok {
		u.saw["basic="+user+":"+pass] = true
	}
	u.mu.Unlock()
	// A node's verdict (code 2, as the SDK carries an app error), so clients fail at once: code
	// 13 would be retried with growing pauses, and the refreshes would not fail within the test.
	http.Error(w, `{"code":2,"message":"upstream trouble"}`, http.StatusInternalServerError)
}

func (u *keyedUpstream) seen(k string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.saw[k]
}

// deadURL is an address nothing listens on.
func deadURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// fetch answers one request as text: status, body.
func fetch(t *testing.T, method, url, body string) string {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Status + " " + string(b)
}

func checkNoSecret(t *testing.T, where, text string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			i := strings.Index(text, s)
			t.Errorf("%s shows %q: …%s…", where, s, text[max(0, i-120):min(len(text), i+60)])
		}
	}
}

// TestNoSecretLeaves puts credentials in every place a URL enters rollgate (the router's
// registry, the indexer's --rpc-url flag and REST_URL environment variable, user:password and
// key/token query values) and checks that they reach the upstream but appear in no response,
// error body or log line, debug level included.
func TestNoSecretLeaves(t *testing.T) {
	up := &keyedUpstream{saw: map[string]bool{}}
	srv := httptest.NewServer(up)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	rest := "http://alice:hunter2@" + host + "/?apikey=S3CRETKEY"
	rpc := "http://alice:hunter2@" + host + "/?token=T0KENVAL"
	dead := "http://bob:bobpw@" + deadURL(t) + "/?key=K3YVAL"

	t.Run("router_registry", func(t *testing.T) {
		// The router's test registry with every API address replaced by a keyed URL.
		src := filepath.Join(testutil.RepoRoot(t), "internal", "router", "registry", "testdata", "registry")
		dir := t.TempDir()
		addr := regexp.MustCompile(`"http://127\.0\.0\.1:\d+"`)
		n := 0
		err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if filepath.Base(p) == "chain.json" {
				b = addr.ReplaceAllFunc(b, func([]byte) []byte {
					n++
					if n%3 == 0 {
						return []byte(`"` + dead + `"`)
					}
					return []byte(`"` + rest + `"`)
				})
			}
			out := filepath.Join(dir, strings.TrimPrefix(p, src))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			return os.WriteFile(out, b, 0o644)
		})
		if err != nil || n < 6 {
			t.Fatalf("rewrote %d addresses: %v", n, err)
		}
		listen := freeAddr(t)
		env, stdout, stderr := testEnv(nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, env, []string{"router", "--registry", dir, "--listen", listen, "--refresh", "100ms",
				"--log-level", "debug", "--access-log", "--track-db", "off"})
		}()
		base := "http://" + listen
		for i := 0; i < 100 && strings.HasPrefix(fetch(t, "GET", base+"/healthz", ""), "error"); i++ {
			time.Sleep(30 * time.Millisecond)
		}
		user, _ := address.Bech32("init", bytes.Repeat([]byte{1}, 20))
		hubUser, _ := address.Bech32("cosmos", bytes.Repeat([]byte{1}, 20))
		bal, _ := json.Marshal(map[string]any{"chains": map[string]any{
			"initia-devnet-1":    map[string]any{"address": user, "denoms": []string{"uinit"}},
			"minievm-devnet-1":   map[string]any{"address": user, "denoms": []string{}},
			"cosmoshub-devnet-1": map[string]any{"address": hubUser, "denoms": []string{"uatom"}},
		}})
		var answers []string
		for _, q := range []struct{ method, path, body string }{
			{"GET", "/v2/info/chains", ""},
			{"GET", "/v2/info/chains?include_evm=true", ""},
			{"POST", "/v2/info/balances", string(bal)},
			{"GET", "/v2/info/bridges", ""},
			{"GET", "/metrics", ""},
		} {
			answers = append(answers, q.path+": "+fetch(t, q.method, base+q.path, q.body))
		}
		// Let a few refreshes fail against the keyed upstreams.
		time.Sleep(400 * time.Millisecond)
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		all := strings.Join(answers, "\n")
		if !strings.Contains(all, "xxxxx@") || !strings.Contains(all, `"error":`) {
			t.Errorf("the answers show neither redacted URLs nor upstream errors; the test exercised nothing:\n%.2000s", all)
		}
		checkNoSecret(t, "router answers", all)
		checkNoSecret(t, "router log", stderr.String()+stdout.String())
		if !strings.Contains(stderr.String(), "registry refresh") {
			t.Errorf("no refresh logged:\n%s", stderr)
		}
		if !up.seen("apikey=S3CRETKEY") || !up.seen("basic=alice:hunter2") {
			t.Errorf("the credentials did not reach the upstream: %v", up.saw)
		}
	})

	t.Run("indexer_flags_and_env", func(t *testing.T) {
		listen := freeAddr(t)
		env, stdout, stderr := testEnv(map[string]string{"REST_URL": rest})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, env, []string{"indexer", "--chain-id", "x-1", "--vm-type", "move", "--rpc-url", dead + "," + rpc,
				"--db", "sqlite:" + filepath.Join(t.TempDir(), "x.db"), "--listen", listen, "--log-level", "debug",
				"--access-log", "--ready-stale-after", "200ms"})
		}()
		base := "http://" + listen
		var ready string
		for i := 0; i < 200; i++ {
			time.Sleep(30 * time.Millisecond)
			ready = fetch(t, "GET", base+"/readyz", "")
			if strings.Contains(ready, "last error") && up.seen("token=T0KENVAL") {
				break
			}
		}
		var answers []string
		for _, p := range []string{"/readyz", "/status", "/healthz", "/metrics"} {
			answers = append(answers, p+": "+fetch(t, "GET", base+p, ""))
		}
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		all := strings.Join(answers, "\n")
		if !strings.Contains(ready, "last error") || !strings.Contains(all, `url="http://xxxxx@`) {
			t.Errorf("neither an upstream error in /readyz nor a redacted URL label in /metrics; the test exercised nothing:\n%.3000s", all)
		}
		checkNoSecret(t, "indexer answers", all)
		logs := stderr.String() + stdout.String()
		checkNoSecret(t, "indexer log", logs)
		// The failed attempts are the chain's reach.Watch's to log ("upstream attempt failed" at
		// debug, "upstream unreachable" once it lasts), each naming the URL.
		if !strings.Contains(logs, `msg="upstream attempt failed" url="http://xxxxx@`) || !strings.Contains(logs, "httpx: rotating endpoint") {
			t.Errorf("no failure or rotation logged:\n%.3000s", logs)
		}
		if !up.seen("token=T0KENVAL") || !up.seen("apikey=S3CRETKEY") {
			t.Errorf("the credentials did not reach the upstream: %v", up.saw)
		}

		// A URL the indexer refuses is named, redacted, in the error.
		env, _, stderr = testEnv(nil)
		code := run(context.Background(), env, []string{"indexer", "--chain-id", "x-1", "--vm-type", "move",
			"--rpc-url", "ftp://alice:hunter2@" + host + "/?token=T0KENVAL", "--rest-url", rest,
			"--db", "sqlite:" + filepath.Join(t.TempDir(), "y.db"), "--listen", freeAddr(t)})
		if code == 0 || !strings.Contains(stderr.String(), "scheme") {
			t.Errorf("bad scheme accepted (exit %d): %s", code, stderr)
		}
		checkNoSecret(t, "indexer start-up error", stderr.String())
	})
}
