package ingest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/store"
)

// downChain is a fakeChain whose every call fails while down is set, as an unreachable node.
type downChain struct {
	*fakeChain
	down atomic.Bool
}

func (c *downChain) LatestHeight(ctx context.Context) (int64, error) {
	if c.down.Load() {
		return 0, errors.New("dial tcp: connection refused (injected)")
	}
	return c.fakeChain.LatestHeight(ctx)
}

// hangWriter stops writing (blocks until cancelled) once hang is set, like a stuck database.
type hangWriter struct {
	memWriter
	hang atomic.Bool
}

func (w *hangWriter) WriteBlocks(ctx context.Context, b []store.BlockBundle) error {
	if w.hang.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return w.memWriter.WriteBlocks(ctx, b)
}

// startPipeline runs a pipeline until the test ends.
func startPipeline(t *testing.T, cfg Config, src Source, w store.Writer) *Pipeline {
	t.Helper()
	p, err := New(cfg, src, w, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = p.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return p
}

// waitReady polls Ready until it reports the reason ("" = ready) or the deadline passes.
func waitReady(t *testing.T, p *Pipeline, reason string) error {
	t.Helper()
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		err = p.Ready()
		var nr *NotReadyError
		switch {
		case err == nil && reason == "":
			return nil
		case errors.As(err, &nr) && nr.Reason == reason:
			return err
		}
	}
	t.Fatalf("readiness %v, want reason %q", err, reason)
	return nil
}

func healthConfig() Config {
	cfg := fastConfig()
	cfg.ReadyStaleAfter = 150 * time.Millisecond
	cfg.ReadyMaxLag = 20
	return cfg
}

// TestReadiness: unready before the chain answers, while it is unreachable, while lagging
// and while stalled behind the tip; ready at the tip, and still ready at the tip of a chain
// that produces no new block.
func TestReadiness(t *testing.T) {
	t.Run("never_reached", func(t *testing.T) {
		dead, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + dead.Addr().String()
		dead.Close()
		src, err := DialSource(url, url, nil, httpx.WithMaxAttempts(0), httpx.WithBackoff(time.Millisecond, 5*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		p := startPipeline(t, healthConfig(), src, &memWriter{})
		// The head read never returns (transport retries without limit), yet readiness
		// names the upstream's error.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			err := waitReady(t, p, NotReadyUpstream)
			if strings.Contains(err.Error(), "last error") && strings.Contains(err.Error(), "refused") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("unready without the upstream's error: %v", err)
			}
		}
	})
	t.Run("tip_then_unreachable_then_back", func(t *testing.T) {
		src := &downChain{fakeChain: newFakeChain(30, 0)}
		w := &memWriter{}
		p := startPipeline(t, healthConfig(), src, w)
		_ = waitReady(t, p, "")
		// At the tip of a quiet chain for several stale periods: still ready.
		time.Sleep(400 * time.Millisecond)
		if err := p.Ready(); err != nil {
			t.Fatalf("quiet chain at the tip: %v", err)
		}
		src.down.Store(true)
		_ = waitReady(t, p, NotReadyUpstream)
		src.down.Store(false)
		_ = waitReady(t, p, "")
	})
	t.Run("lagging", func(t *testing.T) {
		src := &slowChain{fakeChain: newFakeChain(5000, 0), delay: 20 * time.Millisecond}
		cfg := healthConfig()
		cfg.Concurrency = 1
		p := startPipeline(t, cfg, src, &memWriter{})
		err := waitReady(t, p, NotReadyLagging)
		if !strings.Contains(err.Error(), "behind the chain tip") {
			t.Errorf("message %q", err)
		}
	})
	t.Run("stalled", func(t *testing.T) {
		src := &downChain{fakeChain: newFakeChain(10, 0)}
		w := &hangWriter{}
		p := startPipeline(t, healthConfig(), src, w)
		_ = waitReady(t, p, "")
		w.hang.Store(true)
		src.head.Store(15) // within ReadyMaxLag, but nothing is written any more
		_ = waitReady(t, p, NotReadyStalled)
	})
}

// TestUpstreamMetrics: DialSource counts attempts, failures by kind and latency per base URL,
// the URL label redacted.
func TestUpstreamMetrics(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"result":{"sync_info":{"latest_block_height":"7"}}}`))
	}))
	defer srv.Close()
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + dead.Addr().String() + "/?apikey=SECRET"
	dead.Close()
	reg := prometheus.NewRegistry()
	src, err := DialSource(deadURL+","+srv.URL, srv.URL, reg, httpx.WithMaxAttempts(0), httpx.WithBackoff(time.Millisecond, 2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	h, err := src.LatestHeight(context.Background())
	if err != nil || h != 7 {
		t.Fatalf("head %d, %v", h, err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			key := mf.GetName() + labels(m)
			if strings.Contains(key, "SECRET") {
				t.Errorf("credential in a label: %s", key)
			}
			switch {
			case m.Counter != nil:
				series[key] += m.Counter.GetValue()
			case m.Histogram != nil:
				series[key] += float64(m.Histogram.GetSampleCount())
			}
		}
	}
	live := srv.URL
	deadShown := strings.Replace(deadURL, "SECRET", "xxxxx", 1)
	for _, want := range []string{
		"rollgate_ingest_upstream_attempts_total{result=ok,upstream=rpc,url=" + live + "}",
		"rollgate_ingest_upstream_attempts_total{result=retry,upstream=rpc,url=" + live + "}",
		"rollgate_ingest_upstream_failures_total{kind=status,upstream=rpc,url=" + live + "}",
		"rollgate_ingest_upstream_failures_total{kind=connection,upstream=rpc,url=" + deadShown + "}",
		"rollgate_ingest_upstream_attempt_seconds{upstream=rpc,url=" + live + "}",
	} {
		if series[want] < 1 {
			t.Errorf("no %s in\n%v", want, series)
		}
	}
	if okAt, failAt, last := src.UpstreamState(); okAt.IsZero() || failAt.IsZero() || last == nil || !okAt.After(failAt) {
		t.Errorf("state ok %v fail %v last %v", okAt, failAt, last)
	}
}

func labels(m *dto.Metric) string {
	var parts []string
	for _, l := range m.GetLabel() {
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	return "{" + strings.Join(parts, ",") + "}"
}
