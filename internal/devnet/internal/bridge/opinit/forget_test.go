package opinit

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// fakeWithdrawals holds withdrawals from..to of one bridge, one a minute from t0.
type fakeWithdrawals struct {
	from, to uint64
	t0       time.Time
}

func (f fakeWithdrawals) Withdrawal(_, seq uint64) (WithdrawalRecord, bool, error) {
	if seq < f.from || seq > f.to {
		return WithdrawalRecord{}, false, nil
	}
	return WithdrawalRecord{Sequence: seq, Time: f.t0.Add(time.Duration(seq) * time.Minute)}, true, nil
}

func (f fakeWithdrawals) Latest(uint64) (uint64, error) { return f.to, nil }

// TestLastFinalizedAfterForgetting: last_finalized_output names the newest withdrawal past
// the finalization period also when the oldest ones are gone (a walk up from 1 stopped at
// the first gap), and answers 404 when none is finalized.
func TestLastFinalizedAfterForgetting(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name string
		src  fakeWithdrawals
		want string // output_index, "" for a 404
	}{
		// sequence s at now-60min+s min: with a 30-minute period, 1…30 are finalized (30 just).
		{"all kept", fakeWithdrawals{1, 50, now.Add(-60 * time.Minute)}, "30"},
		{"oldest forgotten", fakeWithdrawals{20, 50, now.Add(-60 * time.Minute)}, "30"},
		{"finalized ones forgotten", fakeWithdrawals{40, 50, now.Add(-60 * time.Minute)}, ""},
		{"none yet", fakeWithdrawals{1, 0, now}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := NewHost(HostConfig{Bridges: []Bridge{{ID: 1, FinalizationPeriod: 30 * time.Minute}}, Withdrawals: c.src})
			mux := http.NewServeMux()
			h.Routes(mux, func(*http.Request) (sim.Query, error) { return nil, nil })
			w := httptest.NewRecorder()
			mux.ServeHTTP(w, httptest.NewRequest("GET", "/opinit/ophost/v1/bridges/1/last_finalized_output", nil))
			if c.want == "" {
				if w.Code != http.StatusNotFound {
					t.Fatalf("status %d, want 404: %s", w.Code, w.Body)
				}
				return
			}
			var got struct {
				OutputIndex string `json:"output_index"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != http.StatusOK || got.OutputIndex != c.want {
				t.Fatalf("status %d, output_index %q (err %v), want %s: %s", w.Code, got.OutputIndex, err, c.want, w.Body)
			}
		})
	}
}

// TestChildForgetsWithdrawals: a withdrawal is forgettable once KeepWithdrawals have passed
// after its finalization period, never with KeepWithdrawals 0, and nothing else of the
// store is.
func TestChildForgetsWithdrawals(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec, _ := json.Marshal(WithdrawalRecord{Sequence: 1, Time: t0})
	key := withdrawalKey(1)
	cases := []struct {
		keep  time.Duration
		store string
		key   string
		at    time.Duration // base time after t0
		want  bool
	}{
		{10 * time.Minute, ChildStore, key, 14 * time.Minute, false},
		{10 * time.Minute, ChildStore, key, 15 * time.Minute, true}, // 5 min period + 10 min
		{0, ChildStore, key, 24 * time.Hour, false},
		{10 * time.Minute, HostStore, key, time.Hour, false},
		{10 * time.Minute, ChildStore, "denomPair/x", time.Hour, false},
	}
	for _, c := range cases {
		ch := NewChild(ChildConfig{Bridge: Bridge{ID: 1, FinalizationPeriod: 5 * time.Minute}, KeepWithdrawals: c.keep})
		if got := ch.Forgettable(t0.Add(c.at), c.store, c.key, rec); got != c.want {
			t.Errorf("keep %s, %s/%s at +%s: forgettable %v, want %v", c.keep, c.store, c.key, c.at, got, c.want)
		}
	}
	if !strings.HasPrefix(key, withdrawalPrefix()) {
		t.Fatal("withdrawal keys moved")
	}
}
