package resettest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi/sse"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// The binary under test, built once for the package (TestMain removes it).
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// rollgate builds cmd/rollgate into a temporary directory, once.
func rollgate(t *testing.T) string {
	t.Helper()
	root := testutil.RepoRoot(t)
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "rollgate-resettest-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "rollgate")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/rollgate")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/rollgate: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// proc is one rollgate process, its output kept for the failure messages.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  testutil.SyncBuffer
	done chan struct{}
}

// start runs rollgate with args under a minimal environment (no DB_DSN, RPC_URL… of the
// caller's), stopped when the test ends.
func start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, done: make(chan struct{})}
	p.cmd = exec.Command(rollgate(t), args...)
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + os.TempDir()}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop ends the process as an operator does (SIGTERM), killing it after 20 s.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("%s did not stop on SIGTERM:\n%s", p.name, p.tail())
	}
}

func (p *proc) tail() string {
	s := p.out.String()
	return s[max(0, len(s)-4000):]
}

// waitFor polls cond every 100 ms until it holds, failing the test after d.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool, procs ...*proc) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			var logs strings.Builder
			for _, p := range procs {
				fmt.Fprintf(&logs, "--- %s:\n%s\n", p.name, p.tail())
			}
			t.Fatalf("timed out after %v waiting for %s\n%s", d, what, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// freePortBase finds a port base for startDevnet's two chains whose ports are all free: chain
// i listens on base+10i .. base+10i+3 and the Ethereum chain on base+22 (devnet.Config.PortBase),
// so base..base+22 is probed. Bases stay in 27000..32012, below Linux's ephemeral range
// (32768 and up), where the kernel hands out the local ports of outgoing connections, which
// no probe can reserve: a base drawn from 20000..59990 once had its Ethereum port taken by a
// connection between the probe and the devnet's listen. 26000..26999 holds the fixed bases of
// `rollgate devnet`'s default (26600) and of other packages' tests.
func freePortBase(t *testing.T) int {
	t.Helper()
	for range 50 {
		base := 27000 + 10*rand.IntN(500)
		free := true
		for p := base; p <= base+22 && free; p++ {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				free = false
				continue
			}
			ln.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free port range for a devnet")
	return 0
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// rollupURLs are the endpoints of a devnet's second chain (the rollup; the L1 is the first).
type rollupURLs struct{ rpc, rest, jsonRPC string }

func rollupAt(base int) rollupURLs {
	u := func(off int) string { return "http://127.0.0.1:" + strconv.Itoa(base+off) }
	return rollupURLs{rpc: u(10), rest: u(11), jsonRPC: u(12)}
}

// startDevnet runs `rollgate devnet` with an L1 and one rollup (id:kind) on ports from base.
func startDevnet(t *testing.T, name, dir string, base int, seed int, interval, rollup string) *proc {
	t.Helper()
	return start(t, name, "devnet", "--data-dir", dir, "--port-base", strconv.Itoa(base), "--seed", strconv.Itoa(seed),
		"--interval", interval, "--chains", "initia-devnet-1:l1,"+rollup, "--retain-blocks", "0", "--log-level", "warn")
}

func get(url string) (int, []byte) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// nodeHeight is a CometBFT node's latest height, 0 when it does not answer.
func nodeHeight(rpc string) int64 {
	_, b := get(rpc + "/status")
	var st struct {
		Result struct {
			SyncInfo struct {
				Height string `json:"latest_block_height"`
			} `json:"sync_info"`
		} `json:"result"`
	}
	if json.Unmarshal(b, &st) != nil {
		return 0
	}
	h, _ := strconv.ParseInt(st.Result.SyncInfo.Height, 10, 64)
	return h
}

// nodeBlock is a CometBFT node's hash of block h and the parent hash it names.
func nodeBlock(t *testing.T, rpc string, h int64) (hash, parent string) {
	t.Helper()
	_, b := get(rpc + "/block?height=" + strconv.FormatInt(h, 10))
	var r struct {
		Result struct {
			BlockID struct {
				Hash string `json:"hash"`
			} `json:"block_id"`
			Block struct {
				Header struct {
					LastBlockID struct {
						Hash string `json:"hash"`
					} `json:"last_block_id"`
				} `json:"header"`
			} `json:"block"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Result.BlockID.Hash == "" {
		t.Fatalf("block %d of %s: %v %.300s", h, rpc, err, b)
	}
	return r.Result.BlockID.Hash, r.Result.Block.Header.LastBlockID.Hash
}

// indexer is one `rollgate indexer` process and what the test recorded of it.
type indexer struct {
	*proc
	url, dsn string
	reindex  bool
	replica  *indexer          // an API replica (--mode api) on the same store
	tape     *tape             // a block stream read from the replica
	height   int64             // indexed height once the old chain was gone
	answers  map[string][]byte // API answers then
	dump     []byte            // store dump then
}

// indexerArgs are the flags shared by every indexer of the tests: internal txs are off
// because their follower trails the blocks, so a --stop-height run would end wherever it is.
func indexerArgs(dsn string, port int, extra ...string) []string {
	return append([]string{"indexer", "--db", dsn, "--listen", "127.0.0.1:" + strconv.Itoa(port), "--internal-tx", "false",
		"--log-level", "info", "--ready-stale-after", "5s"}, extra...)
}

func startIndexer(t *testing.T, name, dsn string, r rollupURLs, extra ...string) *indexer {
	t.Helper()
	port := freePort(t)
	args := indexerArgs(dsn, port, append([]string{"--chain-id", "minievm-devnet-1", "--vm-type", "evm",
		"--rpc-url", r.rpc, "--rest-url", r.rest, "--json-rpc-url", r.jsonRPC}, extra...)...)
	return &indexer{proc: start(t, name, args...), url: "http://127.0.0.1:" + strconv.Itoa(port), dsn: dsn}
}

// startReplica runs an API replica of x (`--mode api` on x's store: the same SQLite file,
// the same PostgreSQL database).
func startReplica(t *testing.T, x *indexer, r rollupURLs) *indexer {
	t.Helper()
	port := freePort(t)
	args := indexerArgs(x.dsn, port, "--mode", "api", "--chain-id", "minievm-devnet-1", "--vm-type", "evm", "--json-rpc-url", r.jsonRPC)
	return &indexer{proc: start(t, x.name+" replica", args...), url: "http://127.0.0.1:" + strconv.Itoa(port), dsn: x.dsn}
}

// tape reads one stream in the background, keeping every event until it ends.
type tape struct {
	mu   sync.Mutex
	evs  []sse.Event
	done chan struct{}
	body io.Closer
}

func record(t *testing.T, url, lastID string) *tape {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		t.Fatalf("%s: %d", url, resp.StatusCode)
	}
	tp := &tape{done: make(chan struct{}), body: resp.Body}
	t.Cleanup(func() { resp.Body.Close() })
	go func() {
		defer close(tp.done)
		rd := sse.NewReader(resp.Body)
		for {
			ev, err := rd.Next()
			if err != nil {
				return
			}
			tp.mu.Lock()
			tp.evs = append(tp.evs, ev)
			tp.mu.Unlock()
		}
	}()
	return tp
}

func (tp *tape) events() []sse.Event {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]sse.Event(nil), tp.evs...)
}

// ended waits until the stream ends and requires its last event to be an error with detail.
func (tp *tape) ended(t *testing.T, what, detail string, procs ...*proc) []sse.Event {
	t.Helper()
	waitFor(t, what+" ending", 20*time.Second, func() bool {
		select {
		case <-tp.done:
			return true
		default:
			return false
		}
	}, procs...)
	evs := tp.events()
	if len(evs) == 0 || evs[len(evs)-1].Name != "error" || !strings.Contains(string(evs[len(evs)-1].Data), `"`+detail+`"`) {
		last := sse.Event{}
		if len(evs) > 0 {
			last = evs[len(evs)-1]
		}
		t.Fatalf("%s: last event %s %s, want an error %s", what, last.Name, last.Data, detail)
	}
	return evs[:len(evs)-1]
}

// oldBlocks requires every block event to be a block the store held of the old chain:
// its id a bare height up to top, its hash the one stored then.
func oldBlocks(t *testing.T, what string, evs []sse.Event, top int64, hashes map[int64]string) {
	t.Helper()
	for _, ev := range evs {
		var b struct {
			Height string `json:"height"`
			Hash   string `json:"hash"`
		}
		h, err := strconv.ParseInt(ev.ID, 10, 64)
		if ev.Name != "block" || err != nil || json.Unmarshal(ev.Data, &b) != nil || h > top || b.Height != ev.ID {
			t.Fatalf("%s: event %s %q %.200s is no block of the old chain (top %d)", what, ev.Name, ev.ID, ev.Data, top)
		}
		if want, ok := hashes[h]; ok && !strings.EqualFold(b.Hash, want) {
			t.Fatalf("%s: block %d is %s, the old chain's is %s", what, h, b.Hash, want)
		}
	}
}

// statusHeight is the indexed height an indexer API reports at prefix, -1 when it does not answer.
func statusHeight(url string) int64 {
	code, b := get(url + "/status")
	var st struct {
		Height int64 `json:"height"`
	}
	if code != 200 || json.Unmarshal(b, &st) != nil {
		return -1
	}
	return st.Height
}

// settled waits until the indexed height at url stops moving (the chain under it is gone).
func settled(t *testing.T, url string, p *proc) int64 {
	t.Helper()
	last, since := int64(-2), time.Now()
	waitFor(t, "the indexed height at "+url+" to settle", 30*time.Second, func() bool {
		h := statusHeight(url)
		if h != last {
			last, since = h, time.Now()
		}
		// 3 s: on a loaded machine a batch fetched before the chain stopped can still be
		// committing 1.5 s later, and the test would then compare against a height too low.
		return h > 0 && time.Since(since) > 3*time.Second
	}, p)
	return last
}

// answersAt are API answers that must stay byte-equal while the store holds the same chain:
// the newest pages of blocks and txs (with their totals) and the stored top block.
func answersAt(t *testing.T, url string, top int64) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, path := range []string{
		"/indexer/block/v1/blocks?pagination.limit=20",
		"/indexer/tx/v1/txs?pagination.limit=50",
		"/indexer/tx/v1/txs?pagination.limit=10&pagination.offset=5",
		"/indexer/block/v1/blocks/" + strconv.FormatInt(top, 10),
		"/indexer/block/v1/blocks/" + strconv.FormatInt(top/2, 10),
		"/indexer/block/v1/avg_blocktime",
	} {
		code, b := get(url + path)
		if code != 200 {
			t.Fatalf("%s%s: %d %.300s", url, path, code, b)
		}
		out[path] = b
	}
	return out
}

// storeDump is the store's dump, read beside the running process.
func storeDump(t *testing.T, dsn string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := store.OpenReader(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b bytes.Buffer
	if err := db.Dump(ctx, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func storedHash(t *testing.T, dsn string, h int64) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := store.OpenReader(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b, err := db.BlockHash(ctx, h)
	if err != nil {
		t.Fatalf("stored block %d: %v", h, err)
	}
	return store.HashHex(b)
}

// readyz is an indexer's readiness answer: the status and, unready, the reason and message.
func readyz(url string) (code int, reason, message string) {
	code, b := get(url + "/readyz")
	var e struct {
		Message string   `json:"message"`
		Details []string `json:"details"`
	}
	if json.Unmarshal(b, &e) == nil && len(e.Details) > 0 {
		reason = e.Details[0]
	}
	return code, reason, e.Message
}

// checkMismatch requires url's readiness to be CHAIN_MISMATCH naming the stored hash and the
// new node's hash of the same height (or its next block's parent hash), both checked at source.
func checkMismatch(t *testing.T, name, url, dsn, rpc string) {
	t.Helper()
	code, reason, msg := readyz(url)
	if code != http.StatusServiceUnavailable || reason != "CHAIN_MISMATCH" {
		t.Fatalf("%s: /readyz %d %s %q, want 503 CHAIN_MISMATCH", name, code, reason, msg)
	}
	var h, nh int64
	var stored, node string
	at := strings.Index(msg, "stored block")
	if at < 0 {
		t.Fatalf("%s: readiness message %q does not name the stored block", name, msg)
	}
	msg = msg[at:]
	if _, err := fmt.Sscanf(msg, "stored block %d is %s the node's block %d is %s", &h, &stored, &nh, &node); err == nil {
		stored = strings.TrimSuffix(stored, ",")
		node = strings.TrimSuffix(node, ";")
		if want, _ := nodeBlock(t, rpc, nh); node != want {
			t.Errorf("%s: the message names %s as the node's block %d, the node has %s", name, node, nh, want)
		}
	} else if _, err := fmt.Sscanf(msg, "stored block %d is %s but the node's block %d follows %s", &h, &stored, &nh, &node); err == nil {
		stored = strings.TrimSuffix(stored, ",")
		if _, want := nodeBlock(t, rpc, nh); node != want {
			t.Errorf("%s: the message names %s as the parent of the node's block %d, the node has %s", name, node, nh, want)
		}
	} else {
		t.Fatalf("%s: readiness message %q does not name both blocks", name, msg)
	}
	if want := storedHash(t, dsn, h); stored != want {
		t.Errorf("%s: the message names %s as stored block %d, the store holds %s", name, stored, h, want)
	}
	if stored == node {
		t.Errorf("%s: a mismatch naming one hash twice: %q", name, msg)
	}
}

// TestChainResetOverProcesses: indexers on SQLite and PostgreSQL follow a devnet rollup; the
// devnet is replaced by one with another seed, the same chain id and ports and faster blocks,
// until it is well past the old height. An indexer that halts (the default) stores no block
// or tx of the new chain, says CHAIN_MISMATCH at /readyz with both hashes, and answers byte
// for byte as before; one with --on-chain-mismatch reindex ends with the store a clean run on
// the new chain has.
func TestChainResetOverProcesses(t *testing.T) {
	const (
		oldTop = 30  // the old chain is replaced once every indexer holds this many blocks
		stopAt = 120 // where the re-indexed and the clean runs stop, to compare their stores
	)
	rollgate(t)
	dir := t.TempDir()
	base := freePortBase(t)
	r := rollupAt(base)
	devA := startDevnet(t, "devnet A", filepath.Join(dir, "a"), base, 1, "100ms", "minievm-devnet-1:evm")
	waitFor(t, "devnet A", 60*time.Second, func() bool { return nodeHeight(r.rpc) >= 2 }, devA)

	reindex := []string{"--on-chain-mismatch", "reindex", "--stop-height", strconv.Itoa(stopAt)}
	idx := []*indexer{
		startIndexer(t, "sqlite halt", "sqlite:"+filepath.Join(dir, "halt.db"), r),
		startIndexer(t, "postgres halt", testutil.PostgresDSN(t), r),
		startIndexer(t, "sqlite reindex", "sqlite:"+filepath.Join(dir, "reindex.db"), r, reindex...),
		startIndexer(t, "postgres reindex", testutil.PostgresDSN(t), r, reindex...),
	}
	for _, x := range idx[2:] {
		x.reindex = true
	}
	for _, x := range idx {
		waitFor(t, x.name+" following chain A", 90*time.Second, func() bool {
			code, _, _ := readyz(x.url)
			return statusHeight(x.url) >= oldTop && code == 200
		}, x.proc, devA)
	}
	// An API replica beside each writer, a block stream open on each from its first block.
	for _, x := range idx {
		x.replica = startReplica(t, x, r)
		waitFor(t, x.replica.name+" ready", 60*time.Second, func() bool {
			code, _, _ := readyz(x.replica.url)
			return code == 200
		}, x.replica.proc)
		x.tape = record(t, x.replica.url+"/indexer/block/v1/blocks/stream", "0")
	}
	devA.stop(t)
	oldHashes := map[*indexer]map[int64]string{}
	for _, x := range idx {
		x.height = settled(t, x.url, x.proc)
		x.answers = answersAt(t, x.url, x.height)
		x.dump = storeDump(t, x.dsn)
		if x.height >= stopAt {
			t.Fatalf("%s indexed %d of the old chain, past the comparison height %d", x.name, x.height, stopAt)
		}
		oldHashes[x] = map[int64]string{}
		for h := int64(1); h <= x.height; h++ {
			oldHashes[x][h] = storedHash(t, x.dsn, h)
		}
		waitFor(t, x.replica.name+" streaming the old top", 20*time.Second, func() bool {
			evs := x.tape.events()
			return len(evs) > 0 && evs[len(evs)-1].ID == strconv.FormatInt(x.height, 10)
		}, x.replica.proc)
	}

	devB := startDevnet(t, "devnet B", filepath.Join(dir, "b"), base, 2, "25ms", "minievm-devnet-1:evm")
	waitFor(t, "devnet B past the old heights", 60*time.Second, func() bool {
		return nodeHeight(r.rpc) > stopAt+10
	}, devB)
	if h1, _ := nodeBlock(t, r.rpc, 1); h1 == "" {
		t.Fatal("devnet B serves no block 1")
	}

	for _, x := range idx[:2] {
		waitFor(t, x.name+" reporting CHAIN_MISMATCH", 90*time.Second, func() bool {
			_, reason, _ := readyz(x.url)
			return reason == "CHAIN_MISMATCH"
		}, x.proc)
		checkMismatch(t, x.name, x.url, x.dsn, r.rpc)
		if h := statusHeight(x.url); h != x.height {
			t.Errorf("%s: indexed height %d after the reset, want the old chain's %d", x.name, h, x.height)
		}
		for path, want := range x.answers {
			if _, got := get(x.url + path); !bytes.Equal(got, want) {
				t.Errorf("%s: %s changed after the reset:\n got %.300s\nwant %.300s", x.name, path, got, want)
			}
		}
		if got := storeDump(t, x.dsn); !bytes.Equal(got, x.dump) {
			t.Errorf("%s: the store changed after the reset", x.name)
		}
		if n := strings.Count(x.out.String(), "level=ERROR"); n != 1 || !strings.Contains(x.out.String(), "chain mismatch") {
			t.Errorf("%s: %d ERROR lines, want the mismatch's one:\n%s", x.name, n, x.tail())
		}
		// The replica, which only reads the store, says the same and ends its stream.
		waitFor(t, x.replica.name+" answering /readyz as its writer", 20*time.Second, func() bool {
			wc, wb := get(x.url + "/readyz")
			rc, rb := get(x.replica.url + "/readyz")
			return wc == 503 && rc == 503 && bytes.Equal(wb, rb)
		}, x.proc, x.replica.proc)
		oldBlocks(t, x.replica.name, x.tape.ended(t, x.replica.name+"'s block stream", "CHAIN_MISMATCH", x.replica.proc), x.height, oldHashes[x])
	}

	clean := startIndexer(t, "clean run on chain B", "sqlite:"+filepath.Join(dir, "clean.db"), r, "--stop-height", strconv.Itoa(stopAt))
	for _, x := range append(idx[2:], clean) {
		// Readiness is no test here: a run stopped at a height lags the chain going on.
		waitFor(t, x.name+" at the comparison height", 90*time.Second, func() bool {
			return statusHeight(x.url) == stopAt
		}, x.proc)
	}
	want := testutil.CanonicalDump(t, storeDump(t, clean.dsn))
	for _, x := range idx[2:] {
		if got := testutil.CanonicalDump(t, storeDump(t, x.dsn)); !bytes.Equal(got, want) {
			t.Errorf("%s: the re-indexed store differs from a clean run on the new chain: %s", x.name, firstDiff(want, got))
		}
		if !strings.Contains(x.out.String(), "stored chain dropped") {
			t.Errorf("%s: no re-index logged:\n%s", x.name, x.tail())
		}
		// The replica ended its stream without a block of the new chain, turns the old
		// chain's ids away, and streams the new chain under the new epoch's ids.
		rp := x.replica
		oldBlocks(t, rp.name, x.tape.ended(t, rp.name+"'s block stream", "CHAIN_RESET", rp.proc), x.height, oldHashes[x])
		for _, id := range []string{strconv.FormatInt(x.height, 10), strconv.FormatInt(x.height/2, 10)} {
			evs := record(t, rp.url+"/indexer/block/v1/blocks/stream", id).ended(t, rp.name+" resumed at old id "+id, "CHAIN_RESET", rp.proc)
			if len(evs) != 0 {
				t.Errorf("%s: resumed at the old chain's id %s, got %d events before the error: %s %.200s", rp.name, id, len(evs), evs[0].ID, evs[0].Data)
			}
		}
		waitFor(t, rp.name+" ready on the new chain", 20*time.Second, func() bool {
			code, _, _ := readyz(rp.url)
			return code == 200 || statusHeight(rp.url) == stopAt
		}, rp.proc)
		tp := record(t, rp.url+"/indexer/block/v1/blocks/stream", "0")
		waitFor(t, rp.name+" replaying the new chain", 20*time.Second, func() bool { return len(tp.events()) >= 3 }, rp.proc)
		for i, ev := range tp.events()[:3] {
			var b struct {
				Hash string `json:"hash"`
			}
			hash, _ := nodeBlock(t, r.rpc, int64(i+1))
			if ev.ID != "1:"+strconv.Itoa(i+1) || json.Unmarshal(ev.Data, &b) != nil || !strings.EqualFold(b.Hash, hash) {
				t.Errorf("%s: from=0 event %d is %s %q %.200s, want block %d of the new chain (%s) at id 1:%d", rp.name, i, ev.Name, ev.ID, ev.Data, i+1, hash, i+1)
			}
		}
		tp.body.Close()
	}
}

func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\n got %.300s\nwant %.300s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// TestFleetChainResetOverProcesses: a `--chains` fleet indexes an EVM rollup and a Wasm
// rollup served by two devnets. The EVM rollup's devnet is replaced by another chain with the
// same id and ports: that chain halts alone — CHAIN_MISMATCH at its /readyz naming both
// hashes, no block of the new chain stored, its answers byte-equal — while the Wasm rollup
// goes on advancing and stays ready.
func TestFleetChainResetOverProcesses(t *testing.T) {
	const oldTop = 25
	rollgate(t)
	dir := t.TempDir()
	baseX := freePortBase(t)
	baseY := freePortBase(t)
	for baseY > baseX-23 && baseY < baseX+23 { // the two devnets' ports must not overlap
		baseY = freePortBase(t)
	}
	x, y := rollupAt(baseX), rollupAt(baseY)
	devX := startDevnet(t, "devnet X", filepath.Join(dir, "x"), baseX, 1, "100ms", "minievm-devnet-1:evm")
	devY := startDevnet(t, "devnet Y", filepath.Join(dir, "y"), baseY, 1, "100ms", "miniwasm-devnet-1:wasm")
	waitFor(t, "the devnets", 60*time.Second, func() bool { return nodeHeight(x.rpc) >= 2 && nodeHeight(y.rpc) >= 2 }, devX, devY)

	off := false
	chains := map[string]any{"chains": []map[string]any{
		{"chain_id": "minievm-devnet-1", "vm_type": "evm", "rpc": x.rpc, "rest": x.rest, "json_rpc": x.jsonRPC, "internal_tx": &off},
		{"chain_id": "miniwasm-devnet-1", "vm_type": "wasm", "rpc": y.rpc, "rest": y.rest},
	}}
	b, _ := json.Marshal(chains)
	file := filepath.Join(dir, "chains.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	fleet := start(t, "fleet", "indexer", "--chains", file, "--db", "sqlite:"+filepath.Join(dir, "stores"),
		"--listen", "127.0.0.1:"+strconv.Itoa(port), "--log-level", "info", "--ready-stale-after", "5s")
	root := "http://127.0.0.1:" + strconv.Itoa(port)
	evm, wasm := root+"/minievm-devnet-1", root+"/miniwasm-devnet-1"
	evmDSN := "sqlite:" + filepath.Join(dir, "stores", "minievm-devnet-1.db")
	for _, u := range []string{evm, wasm} {
		waitFor(t, u+" following its chain", 90*time.Second, func() bool {
			code, _, _ := readyz(u)
			return statusHeight(u) >= oldTop && code == 200
		}, fleet, devX, devY)
	}

	devX.stop(t)
	height := settled(t, evm, fleet)
	answers := answersAt(t, evm, height)
	dump := storeDump(t, evmDSN)
	wasmAt := statusHeight(wasm)

	devX2 := startDevnet(t, "devnet X replaced", filepath.Join(dir, "x2"), baseX, 2, "25ms", "minievm-devnet-1:evm")
	waitFor(t, "the replaced devnet past the old height", 60*time.Second, func() bool { return nodeHeight(x.rpc) > height+20 }, devX2)
	waitFor(t, "the EVM chain reporting CHAIN_MISMATCH", 90*time.Second, func() bool {
		_, reason, _ := readyz(evm)
		return reason == "CHAIN_MISMATCH"
	}, fleet)
	checkMismatch(t, "fleet EVM chain", evm, evmDSN, x.rpc)
	if h := statusHeight(evm); h != height {
		t.Errorf("EVM chain: indexed height %d after the reset, want the old chain's %d", h, height)
	}
	for path, want := range answers {
		if _, got := get(evm + path); !bytes.Equal(got, want) {
			t.Errorf("EVM chain: %s changed after the reset:\n got %.300s\nwant %.300s", path, got, want)
		}
	}
	if got := storeDump(t, evmDSN); !bytes.Equal(got, dump) {
		t.Error("EVM chain: the store changed after the reset")
	}
	waitFor(t, "the Wasm chain advancing beside the halted one", 30*time.Second, func() bool {
		code, _, _ := readyz(wasm)
		return statusHeight(wasm) >= wasmAt+10 && code == 200
	}, fleet, devY)
	if n := strings.Count(fleet.out.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d ERROR lines in the fleet's log, want the mismatch's one:\n%s", n, fleet.tail())
	}
}
