package replicatest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/cli"
)

// The tests re-execute this binary as the rollgate CLI; these variables carry the arguments.
const (
	childEnv  = "ROLLGATE_REPLICATEST_CLI" // "1" in a child
	childArgs = "ROLLGATE_REPLICATEST_ARGS"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv(childArgs)), &args); err != nil {
			fmt.Fprintln(os.Stderr, "child args:", err)
			os.Exit(2)
		}
		os.Exit(cli.Main(args, cli.Build{Version: "replicatest", Commit: "test"}))
	}
	os.Exit(m.Run())
}

// proc is one rollgate process (a child of the test) with its log in a file.
type proc struct {
	t    *testing.T
	name string
	cmd  *exec.Cmd
	log  string
	done chan error
}

// startCLI runs `rollgate <args>` as a child; it is stopped (SIGTERM, then SIGKILL) when the
// test ends, and its log is printed if the test failed.
func startCLI(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	b, _ := json.Marshal(args)
	p := &proc{t: t, name: name, log: filepath.Join(t.TempDir(), name+".log"), done: make(chan error, 1)}
	f, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.cmd.Env = append(os.Environ(), childEnv+"=1", childArgs+"="+string(b))
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait(); f.Close() }()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			b, _ := os.ReadFile(p.log)
			t.Logf("--- log of %s (last 4 KB) ---\n%s", name, tailStr(string(b), 4096))
		}
	})
	return p
}

// runCLI runs `rollgate <args>` to its end and fails the test on a non-zero exit.
func runCLI(t *testing.T, name string, args ...string) {
	t.Helper()
	p := startCLI(t, name, args...)
	select {
	case err := <-p.done:
		p.done <- err
		if err != nil {
			b, _ := os.ReadFile(p.log)
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s did not finish in 2 minutes", name)
	}
}

func (p *proc) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	select {
	case err := <-p.done:
		p.done <- err
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		p.done <- <-p.done
	}
}

// exited reports whether the process has ended (with its error).
func (p *proc) exited() (bool, error) {
	select {
	case err := <-p.done:
		p.done <- err
		return true, err
	default:
		return false, nil
	}
}

func tailStr(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

var client = &http.Client{Timeout: 30 * time.Second}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func get(ctx context.Context, url string, hdr ...string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return answer{}, err
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, b}, err
}

// waitHTTP polls url until it answers want, or fails the test after the timeout.
func waitHTTP(t *testing.T, p *proc, url string, want int, timeout time.Duration) answer {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last answer
	var lastErr error
	for time.Now().Before(deadline) {
		if p != nil {
			if done, err := p.exited(); done {
				b, _ := os.ReadFile(p.log)
				t.Fatalf("%s exited (%v) while waiting for %s:\n%s", p.name, err, url, tailStr(string(b), 4096))
			}
		}
		a, err := get(context.Background(), url)
		if err == nil && a.status == want {
			return a
		}
		last, lastErr = a, err
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not answer %d within %v: last %d %s %v", url, want, timeout, last.status, strings.TrimSpace(string(last.body)), lastErr)
	return answer{}
}
