package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/capture"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
)

// StreamConfig is what `rollgate bench stream` measures: Subs subscribers on one API process
// (the indexer in `--mode all`: the ingestion pipeline writes the busy capture's blocks, repeated
// with unique hashes, at the captured chain's own pace, and the API streams them).
type StreamConfig struct {
	DSN     string // store to write into (the API reads the same store)
	Fixture string // captured chain, as bench ingest's
	// RPC and REST, when set, name a live chain (the CLI's --source devnet starts one) that the
	// pipeline follows at its own pace instead of the capture; ChainID and VMType are its.
	RPC, REST, ChainID, VMType string
	Subs                       int
	Blocks                     int     // blocks streamed and measured after every subscriber is connected
	Speed                      float64 // 1: the chain's pace; 2: twice as fast
	Path                       string  // stream route with its query, default /indexer/block/v1/blocks/stream
	// ClientsInProcess runs the subscribers in this process (tests); otherwise they run in a
	// child process (Exe with ClientArgs), so the memory measured is the server's alone.
	ClientsInProcess bool
	Exe              string
	ClientArgs       func(url string, subs int) []string
}

// StreamResult is what one run measured.
type StreamResult struct {
	Subs, Blocks int
	Events       int           // events received in all (Subs × Blocks when none was lost)
	P50, P99     time.Duration // commit (WriteBlocks returning) to a subscriber's read
	Max          time.Duration
	// HeapPerSub is heap and goroutine stacks in use per subscriber, RSSPerSub the resident
	// set: both the server process's growth from no subscriber to all of them at the tip.
	HeapPerSub, RSSPerSub float64 // bytes
	Load                  string  // /proc/loadavg at the end
}

// clockedSource serves the synthetic source's heights up to a head the bench advances at the
// captured chain's pace.
type clockedSource struct {
	*SyntheticSource
	head atomic.Int64
}

func (c *clockedSource) LatestHeight(context.Context) (int64, error) { return c.head.Load(), nil }

func (c *clockedSource) Block(ctx context.Context, h int64) (*ingest.RawBlock, error) {
	if h > c.head.Load() {
		return nil, fmt.Errorf("height %d: %w", h, ingest.ErrFutureHeight)
	}
	return c.SyntheticSource.Block(ctx, h)
}

// commitClock records when each height's WriteBlocks returned.
type commitClock struct {
	store.Writer
	mu sync.Mutex
	at map[int64]time.Time
}

func (w *commitClock) WriteBlocks(ctx context.Context, bundles []store.BlockBundle) error {
	err := w.Writer.WriteBlocks(ctx, bundles)
	now := time.Now()
	if err == nil {
		w.mu.Lock()
		for _, b := range bundles {
			w.at[b.Block.Height] = now
		}
		w.mu.Unlock()
	}
	return err
}

func (w *commitClock) get(h int64) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.at[h]
	return t, ok
}

// waitIngest polls until reached holds; the context ending or ingestion ending first (it
// should run on) is an error.
func waitIngest(ctx context.Context, ingestDone <-chan error, reached func() bool) error {
	for !reached() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-ingestDone:
			return fmt.Errorf("ingest ended early: %w", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// Stream runs the benchmark and prints its figures.
func Stream(ctx context.Context, cfg StreamConfig, out io.Writer, log *slog.Logger) (StreamResult, error) {
	res := StreamResult{Subs: cfg.Subs, Blocks: cfg.Blocks}
	if cfg.Subs <= 0 || cfg.Blocks <= 0 || cfg.Speed <= 0 {
		return res, fmt.Errorf("subscribers, blocks and speed must be positive")
	}
	if cfg.Path == "" {
		cfg.Path = "/indexer/block/v1/blocks/stream"
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	db, indexed, err := openIndexed(ctx, cfg.DSN, log)
	if err != nil {
		return res, err
	}
	defer db.Close()
	// Two warm-up blocks before the subscribers connect, then the measured ones.
	first := indexed + 3
	stop := first + int64(cfg.Blocks) - 1
	icfg := ingest.Config{ChainID: "local-evm-1", VMType: "evm", StopAtHeight: stop, PollInterval: 20 * time.Millisecond, ProgressInterval: time.Minute}
	var src ingest.Source
	var syn *SyntheticSource
	var clocked *clockedSource
	what := cfg.Fixture
	if cfg.RPC != "" {
		// A live chain: it keeps its own pace, and its heights are whatever it is at.
		cs, err := ingest.DialSource(cfg.RPC, cfg.REST, nil)
		if err != nil {
			return res, err
		}
		head, err := cs.LatestHeight(ctx)
		if err != nil {
			return res, err
		}
		if indexed > 0 {
			return res, fmt.Errorf("%w (indexed height %d): a live chain is followed from its current height, use a fresh store", errStoreNotEmpty, indexed)
		}
		icfg.StartHeight = head
		// The measured heights are fixed once every subscriber is connected; until then the
		// pipeline follows the chain without a stop.
		first = head + 2
		icfg.ChainID, icfg.VMType, icfg.StopAtHeight = cfg.ChainID, cfg.VMType, 0
		src, what = cs, "the chain at "+cfg.RPC
	} else {
		fixture, err := capture.Dir(cfg.Fixture)
		if err != nil {
			return res, err
		}
		if syn, err = LoadSyntheticSource(ctx, fixture, 1<<62, log); err != nil {
			return res, err
		}
		clocked = &clockedSource{SyntheticSource: syn}
		clocked.head.Store(indexed + 2)
		src = clocked
	}
	icfg = icfg.WithDefaults()
	clock := &commitClock{Writer: db, at: map[int64]time.Time{}}
	p, err := ingest.New(icfg, src, clock, log, prometheus.NewRegistry())
	if err != nil {
		return res, err
	}
	ingestCtx, stopIngest := context.WithCancel(ctx)
	defer stopIngest()
	ingestDone := make(chan error, 1)
	go func() { ingestDone <- p.Run(ingestCtx) }()

	apiReg := prometheus.NewRegistry()
	// The API as `rollgate indexer` ships it (response cache on, so served by fasthttp).
	h := api.New(api.Config{ChainID: icfg.ChainID,
		Streams: httpapi.StreamOptions{MaxSubscribers: cfg.Subs, MaxPerIP: cfg.Subs}}, db, log, apiReg)
	url, stopSrv, err := serveAPI(h)
	if err != nil {
		return res, err
	}
	defer stopSrv()
	if err := waitIngest(ctx, ingestDone, func() bool {
		ih, err := db.IndexedHeight(ctx)
		return err == nil && ih >= first-1
	}); err != nil {
		return res, err
	}
	pace := fmt.Sprintf("at %.3gx the chain's pace", cfg.Speed)
	if cfg.RPC != "" {
		pace = "at its own pace"
	}
	fmt.Fprintf(out, "stream bench: %s, %d subscribers on %s, %d blocks of %s %s\n",
		backend(cfg.DSN), cfg.Subs, cfg.Path, cfg.Blocks, what, pace)

	mem0, stack0, rss0 := memLow()
	var clients streamClients
	if cfg.ClientsInProcess {
		clients, err = startInProcess(ctx, url+cfg.Path, cfg.Subs)
	} else {
		clients, err = startChild(ctx, cfg.Exe, cfg.ClientArgs(url+cfg.Path, cfg.Subs))
	}
	if err != nil {
		return res, err
	}
	defer clients.close()
	time.Sleep(time.Second) // every stream waits at the tip
	mem1, stack1, rss1 := memLow()
	res.HeapPerSub = float64(mem1-mem0) / float64(cfg.Subs)
	res.RSSPerSub = float64(rss1-rss0) / float64(cfg.Subs)
	fmt.Fprintf(out, "connected: %d subscribers; server heap+stacks %.1f KiB/subscriber (stacks %.1f), RSS %.1f KiB/subscriber\n",
		cfg.Subs, res.HeapPerSub/1024, float64(stack1-stack0)/float64(cfg.Subs)/1024, res.RSSPerSub/1024)

	if clocked != nil {
		// The chain's clock: height h appears when its captured time comes.
		if err := replayClock(ctx, syn, clocked, first, stop, cfg.Speed); err != nil {
			return res, err
		}
	} else {
		// A live chain: the blocks committed from now on are measured.
		ih, err := db.IndexedHeight(ctx)
		if err != nil {
			return res, err
		}
		first, stop = ih+1, ih+int64(cfg.Blocks)
		if err := waitIngest(ctx, ingestDone, func() bool {
			_, ok := clock.get(stop)
			return ok
		}); err != nil {
			return res, err
		}
		stopIngest()
	}
	if err := <-ingestDone; err != nil {
		return res, fmt.Errorf("ingest: %w", err)
	}
	waitQuiet(ctx, apiReg) // the last events reach the subscribers
	recv, err := clients.results()
	if err != nil {
		return res, err
	}
	var lat []time.Duration
	for hh, ts := range recv {
		c, ok := clock.get(hh)
		if !ok || hh < first || hh > stop {
			continue
		}
		for _, t := range ts {
			lat = append(lat, time.Unix(0, t).Sub(c))
		}
	}
	res.Events = len(lat)
	if len(lat) == 0 {
		return res, errors.New("no event received")
	}
	slices.Sort(lat)
	res.P50, res.P99, res.Max = lat[len(lat)/2], lat[int(0.99*float64(len(lat)-1))], lat[len(lat)-1]
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		res.Load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	fmt.Fprintf(out, "delivered: %d of %d events; commit to subscriber p50 %s ms, p99 %s ms, max %s ms\n",
		res.Events, cfg.Subs*cfg.Blocks, ms(res.P50), ms(res.P99), ms(res.Max))
	fmt.Fprintf(out, "load average at the end: %s (%d CPUs)\n", res.Load, runtime.NumCPU())
	return res, nil
}

// waitQuiet returns once the API has written no stream event for a second (at most a minute).
func waitQuiet(ctx context.Context, reg *prometheus.Registry) {
	events := func() float64 {
		mfs, _ := reg.Gather()
		var n float64
		for _, mf := range mfs {
			if strings.HasSuffix(mf.GetName(), "_stream_events_total") {
				for _, m := range mf.GetMetric() {
					n += m.GetCounter().GetValue()
				}
			}
		}
		return n
	}
	last, since := events(), time.Now()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline) && time.Since(since) < time.Second; {
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
		if n := events(); n != last {
			last, since = n, time.Now()
		}
	}
}

// replayClock advances the source's head from first to stop at the captured block times.
func replayClock(ctx context.Context, syn *SyntheticSource, src *clockedSource, first, stop int64, speed float64) error {
	t0 := time.Now()
	base, err := syn.Block(ctx, first)
	if err != nil {
		return err
	}
	for hh := first; hh <= stop; hh++ {
		b, err := syn.Block(ctx, hh)
		if err != nil {
			return err
		}
		wait := time.Duration(float64(b.Time.Sub(base.Time))/speed) - time.Since(t0)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(max(wait, 0)):
		}
		src.head.Store(hh)
	}
	return nil
}

// memLow is the lowest of ten memNow readings 100 ms apart (heap and stacks, and RSS, each
// its own lowest). Whatever else the process holds for a moment (the pipeline's buffers, an
// answer being computed) only ever adds to a reading, and on a loaded machine such a moment
// once put the baseline 14 MB above the reading with 100 subscribers connected; the lowest
// of ten is what the process holds throughout.
func memLow() (heapStack, stack, rss int64) {
	for i := range 10 {
		if i > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		h, s, r := memNow()
		if i == 0 || h+s < heapStack {
			heapStack, stack = h+s, s
		}
		if i == 0 || r < rss {
			rss = r
		}
	}
	return heapStack, stack, rss
}

// memNow is the process's heap and stacks in use and its resident set, after a GC.
func memNow() (heap, stack, rss int64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	heap, stack = int64(m.HeapInuse), int64(m.StackInuse)
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			rss = pages * int64(os.Getpagesize())
		}
	}
	return heap, stack, rss
}

// streamClients are the running subscribers; results stops them and returns, by event id
// (the height), the times (Unix ns) each subscriber read it.
type streamClients interface {
	results() (map[int64][]int64, error)
	close()
}

// receipts collects the subscribers' reads.
type receipts struct {
	mu sync.Mutex
	at map[int64][]int64
}

func (r *receipts) add(id int64, t int64) {
	r.mu.Lock()
	r.at[id] = append(r.at[id], t)
	r.mu.Unlock()
}

type inProcess struct {
	r     *receipts
	conns []net.Conn
	wg    sync.WaitGroup
}

func startInProcess(ctx context.Context, url string, subs int) (*inProcess, error) {
	c := &inProcess{r: &receipts{at: map[int64][]int64{}}}
	for range subs {
		conn, err := dialStream(ctx, url)
		if err != nil {
			c.close()
			return nil, err
		}
		c.conns = append(c.conns, conn)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			readIDs(conn, c.r.add)
		}()
	}
	return c, nil
}

func (c *inProcess) results() (map[int64][]int64, error) {
	c.close()
	return c.r.at, nil
}

func (c *inProcess) close() {
	for _, conn := range c.conns {
		_ = conn.Close()
	}
	c.conns = nil
	c.wg.Wait()
}

// dialStream opens a stream with a bare HTTP/1.1 request on its own connection: a subscriber
// costs the benchmark a socket, a goroutine and a 4 KiB buffer, so thousands fit beside the
// server.
func dialStream(ctx context.Context, url string) (net.Conn, error) {
	rest, ok := strings.CutPrefix(url, "http://")
	if !ok {
		return nil, fmt.Errorf("%s: http:// only", url)
	}
	host, path, _ := strings.Cut(rest, "/")
	conn, err := new(net.Dialer).DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintf(conn, "GET /%s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", path, host); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return conn, nil
}

// readIDs reads a stream's raw bytes (chunked: each event is written as one chunk, so an event
// line is never split by a chunk header) and reports each "id:" line with the time of the read
// that completed it.
func readIDs(r io.Reader, add func(id, t int64)) {
	buf := make([]byte, 4096)
	var line []byte
	for {
		n, err := r.Read(buf)
		now := time.Now().UnixNano()
		data := buf[:n]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				line = append(line, data...)
				break
			}
			l := data[:i]
			if len(line) > 0 {
				line = append(line, l...)
				l = line
			}
			if v, ok := bytes.CutPrefix(l, []byte("id: ")); ok {
				if id, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64); err == nil {
					add(id, now)
				}
			}
			line = line[:0]
			data = data[i+1:]
		}
		if err != nil {
			return
		}
	}
}

// StreamClients is the child process of `rollgate bench stream`: it connects subs
// subscribers to url, prints "ready", and when its stdin closes prints each event id with its
// read times ("id t1 t2 …", Unix ns) and exits.
func StreamClients(ctx context.Context, url string, subs int, in io.Reader, out io.Writer) error {
	c, err := startInProcess(ctx, url, subs)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "ready")
	_, _ = io.Copy(io.Discard, in)
	at, _ := c.results()
	w := bufio.NewWriter(out)
	for id, ts := range at {
		w.WriteString(strconv.FormatInt(id, 10))
		for _, t := range ts {
			w.WriteByte(' ')
			w.WriteString(strconv.FormatInt(t, 10))
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}

type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	done  bool
}

func startChild(ctx context.Context, exe string, args []string) (*child, error) {
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20)}
	line, err := c.out.ReadString('\n')
	if err != nil || line != "ready\n" {
		c.close()
		return nil, fmt.Errorf("subscriber process: %q: %w", line, err)
	}
	return c, nil
}

func (c *child) results() (map[int64][]int64, error) {
	_ = c.stdin.Close()
	at := map[int64][]int64{}
	for {
		line, err := c.out.ReadString('\n')
		if f := strings.Fields(line); len(f) > 0 {
			id, perr := strconv.ParseInt(f[0], 10, 64)
			if perr != nil {
				return nil, fmt.Errorf("subscriber process: %q", line)
			}
			for _, s := range f[1:] {
				t, _ := strconv.ParseInt(s, 10, 64)
				at[id] = append(at[id], t)
			}
		}
		if err != nil {
			break
		}
	}
	c.done = true
	return at, c.cmd.Wait()
}

func (c *child) close() {
	if !c.done {
		_ = c.stdin.Close()
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
		c.done = true
	}
}
