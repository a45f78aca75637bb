package reach

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// lines returns the log's lines at info and above, each as its msg and time offset.
type logged struct {
	buf bytes.Buffer
}

func (l *logged) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(&l.buf, &slog.HandlerOptions{Level: slog.LevelInfo,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
}

func (l *logged) lines() []string {
	s := strings.TrimSpace(l.buf.String())
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestWatchOutageOnceAndSummaries: a chain whose three endpoints stop answering for ten
// minutes, tried as a following indexer does (backoff doubling to a minute on each), logs
// that it went away once, a summary at most every five minutes, and its return once.
func TestWatchOutageOnceAndSummaries(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	var l logged
	w := New(l.logger(), Options{Now: clk.now})
	urls := []string{"http://rpc", "http://rest", "http://json-rpc"}
	for _, u := range urls {
		w.OK(u)
	}
	start := clk.now()
	err := errors.New("dial tcp: connection refused")
	// Each endpoint is tried with its own backoff: 0.2 s doubling to 60 s.
	next := map[string]time.Time{}
	wait := map[string]time.Duration{}
	for _, u := range urls {
		next[u], wait[u] = start, 200*time.Millisecond
	}
	var at []time.Duration // offsets of the lines, after each attempt
	seen := 0
	for clk.now().Sub(start) < 10*time.Minute {
		for _, u := range urls {
			if !clk.now().Before(next[u]) {
				w.Failed(u, err)
				next[u] = clk.now().Add(wait[u])
				wait[u] = min(2*wait[u], time.Minute)
			}
		}
		if n := len(l.lines()); n > seen {
			for ; seen < n; seen++ {
				at = append(at, clk.now().Sub(start))
			}
		}
		clk.add(100 * time.Millisecond)
	}
	lines := l.lines()
	if len(lines) < 2 || !strings.Contains(lines[0], `msg="upstream unreachable"`) {
		t.Fatalf("want the outage's first line, then summaries; got:\n%s", strings.Join(lines, "\n"))
	}
	if at[0] < DefaultGrace || at[0] > DefaultGrace+time.Minute {
		t.Errorf("first line at %v, want within a minute after the %v grace", at[0], DefaultGrace)
	}
	for i, s := range lines[1:] {
		if !strings.Contains(s, `msg="upstream still unreachable"`) {
			t.Errorf("line %d: want a summary, got %s", i+1, s)
		}
		if gap := at[i+1] - at[i]; gap < DefaultSummary {
			t.Errorf("summary %d came %v after the previous line, want at least %v", i+1, gap, DefaultSummary)
		}
	}
	// ≤ 2 lines per 5 minutes after the first minute.
	for from := time.Minute; from+5*time.Minute <= 10*time.Minute; from += 10 * time.Second {
		n := 0
		for _, a := range at {
			if a >= from && a < from+5*time.Minute {
				n++
			}
		}
		if n > 2 {
			t.Errorf("%d lines in the 5 minutes from %v", n, from)
		}
	}
	if !strings.Contains(lines[len(lines)-1], `urls="[http://json-rpc http://rest http://rpc]"`) {
		t.Errorf("summary should name every unreachable endpoint: %s", lines[len(lines)-1])
	}
	if st := w.State(); len(st.Unreachable) != 3 || !st.Since.Equal(start) || st.LastError != err.Error() {
		t.Errorf("state while away: %+v", st)
	}

	// Back: one line when the last endpoint answers again, none for the first two.
	before := len(lines)
	w.OK("http://rpc")
	w.OK("http://rest")
	if n := len(l.lines()); n != before {
		t.Fatalf("partial return logged at info: %s", l.lines()[n-1])
	}
	w.OK("http://json-rpc")
	lines = l.lines()
	if len(lines) != before+1 || !strings.Contains(lines[before], `msg="upstream reachable again"`) || !strings.Contains(lines[before], "after=10m0s") {
		t.Fatalf("want one line on return; got:\n%s", strings.Join(lines[before:], "\n"))
	}
	if st := w.State(); len(st.Unreachable) != 0 {
		t.Errorf("state once back: %+v", st)
	}
	// Successes while nothing fails cost no lock and say nothing.
	for range 1000 {
		w.OK("http://rpc")
	}
	if len(l.lines()) != before+1 {
		t.Errorf("lines after the return: %v", l.lines()[before+1:])
	}
}

// TestWatchWeatherIsQuiet: failures with successes between them, however many, are weather:
// nothing at info or above, and no endpoint is unreachable.
func TestWatchWeatherIsQuiet(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	var l logged
	w := New(l.logger(), Options{Now: clk.now})
	for i := range 10000 {
		if i%4 == 0 {
			w.Failed("http://rpc", errors.New("connection reset"))
		} else {
			w.OK("http://rpc")
		}
		clk.add(50 * time.Millisecond)
	}
	if lines := l.lines(); len(lines) != 0 {
		t.Errorf("weather logged:\n%s", strings.Join(lines, "\n"))
	}
	if st := w.State(); len(st.Unreachable) != 0 {
		t.Errorf("state: %+v", st)
	}
}

// TestWatchStateWithoutAttempts: an endpoint that failed once and was not tried since (a
// caller in a long backoff) is unreachable once Grace has passed, for readiness.
func TestWatchStateWithoutAttempts(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	w := New(nil, Options{Now: clk.now, Grace: 5 * time.Second})
	w.Failed("http://rpc", errors.New("refused"))
	if st := w.State(); len(st.Unreachable) != 0 {
		t.Fatalf("unreachable before the grace: %+v", st)
	}
	clk.add(6 * time.Second)
	if st := w.State(); len(st.Unreachable) != 1 || st.LastError != "refused" {
		t.Fatalf("state after the grace: %+v", st)
	}
}
