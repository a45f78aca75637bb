package fleet_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/indexer/fleet"
	"github.com/rollgate/rollgate/internal/testutil"
)

// BenchmarkFleetScale measures what a chain at the tip costs one fleet process
// (docs/performance.md, "Many chains"): the fleet runs in a child process (this test binary
// re-run) over PostgreSQL, schema per chain, following N replayed chains (the three captured
// chains, round robin, each advancing a block every 500 ms); for each N it reports CPU, RSS,
// goroutines, sockets and PostgreSQL connections over a window at the tip. A measurement, not
// a check of a bound: one window per N whatever b.N, so run it with -benchtime 1x.
//
//	go test ./internal/indexer/fleet/ -run '^$' -bench FleetScale -benchtime 1x -v -timeout 15m
//	go test ./internal/indexer/fleet/ -run '^$' -bench 'FleetScale/chains=20$' -benchtime 1x -v
func BenchmarkFleetScale(b *testing.B) {
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("machine: %d CPUs, load average %s", runtime.NumCPU(), strings.TrimSpace(string(load)))
	for _, n := range []int{20, 1} {
		b.Run(fmt.Sprintf("chains=%d", n), func(b *testing.B) {
			m := measure(b, n)
			b.ReportMetric(m.cpu, "cores")
			b.ReportMetric(float64(m.rssKB)/1024, "RSS-MiB")
			b.ReportMetric(float64(m.goroutines), "goroutines")
			b.ReportMetric(float64(m.sockets), "sockets")
			b.ReportMetric(float64(m.pgConns), "pg-conns")
			b.ReportMetric(float64(m.behind), "chains-behind")
			b.ReportMetric(0, "ns/op") // one window, not a per-op time
			b.Log(m)
		})
	}
	load, _ = os.ReadFile("/proc/loadavg")
	b.Logf("load average after: %s", strings.TrimSpace(string(load)))
}

// scale is one window's reading of the fleet process.
type scale struct {
	n                            int
	cpu                          float64
	rssKB                        int64
	goroutines, sockets, pgConns int
	behind                       int // chains more than 2 blocks behind their tip at the end
}

func (m scale) String() string {
	return fmt.Sprintf("chains %2d: CPU %.3f cores, RSS %d MiB, goroutines %d, sockets %d (PostgreSQL connections %d), chains more than 2 blocks behind the tip at the end: %d",
		m.n, m.cpu, m.rssKB/1024, m.goroutines, m.sockets, m.pgConns, m.behind)
}

func measure(t testing.TB, n int) scale {
	const every = 500 * time.Millisecond
	const window = 20 * time.Second
	caps := capturedChains(t)
	dsn := testutil.PostgresDSN(t)
	var chains []*moving
	var specs []fleet.Chain
	for i := range n {
		c := caps[i%len(caps)]
		// Enough blocks left to follow the tip for the warm-up and the window.
		m := serveMoving(t, c, fmt.Sprintf("%s_%02d", c.vm, i), max(1, c.top-int64((window+20*time.Second)/every)))
		specs = append(specs, m.spec())
		chains = append(chains, m)
	}
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, specs...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg, _ := json.Marshal(childConfig{Chains: file, DB: dsn, Listen: addr, NoLeases: true, PoolConns: 2})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+string(cfg))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	base := "http://" + addr
	for deadline := time.Now().Add(time.Minute); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fleet process does not listen")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Catch up to the starting tips, then follow the tips as they move.
	for _, c := range chains {
		waitHeight(t, base+"/"+c.id, c.tip.Load(), 5*time.Minute)
	}
	stop := make(chan struct{})
	defer close(stop)
	go advance(stop, every, chains...)
	time.Sleep(5 * time.Second) // at the tip, blocks arriving
	pid := cmd.Process.Pid
	cpu0, t0 := cpuSeconds(t, pid), time.Now()
	time.Sleep(window)
	cpu := (cpuSeconds(t, pid) - cpu0) / time.Since(t0).Seconds()
	rss := statusKB(t, pid, "VmRSS")
	socks := sockets(pid)
	pg := pgConns(t, dsn)
	gor := goroutines(t, base)
	behind := 0
	for _, c := range chains {
		_, _, b := get(t, base+"/"+c.id+"/status", "")
		var s struct{ Height int64 }
		_ = json.Unmarshal(b, &s)
		if c.tip.Load()-s.Height > 2 {
			behind++
		}
	}
	return scale{n: n, cpu: cpu, rssKB: rss, goroutines: gor, sockets: socks, pgConns: pg, behind: behind}
}

func cpuSeconds(t testing.TB, pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}

func statusKB(t testing.TB, pid int, key string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	return 0
}

func sockets(pid int) int {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

func pgConns(t testing.TB, dsn string) int {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) - 1 FROM pg_stat_activity WHERE datname = current_database()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func goroutines(t testing.TB, base string) int {
	_, _, b := get(t, base+"/metrics", "")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "go_goroutines "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return -1
}
