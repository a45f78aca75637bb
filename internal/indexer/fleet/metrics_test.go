package fleet_test

import (
	"bytes"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/rollgate/rollgate/internal/indexer/fleet"
)

// scrape fetches the fleet's /metrics and parses it as Prometheus text.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	st, _, b := get(t, base+"/metrics", "")
	if st != http.StatusOK {
		t.Fatalf("/metrics: %d %s", st, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, b)
	}
	return mfs
}

// chainsOf lists the chain_id label values of a family's series ("" for a series without
// one), sorted and deduplicated.
func chainsOf(mf *dto.MetricFamily) []string {
	var ids []string
	for _, m := range mf.GetMetric() {
		id := ""
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "chain_id" {
				id = lp.GetValue()
			}
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// gauge is the value of name's series of chain id.
func gauge(mfs map[string]*dto.MetricFamily, name, id string) (float64, bool) {
	for _, m := range mfs[name].GetMetric() {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "chain_id" && lp.GetValue() == id {
				return m.GetGauge().GetValue(), true
			}
		}
	}
	return 0, false
}

// TestFleetMetrics: the fleet's /metrics is one scrape for the whole process: every chain's
// ingest and API series labelled with its chain_id, beside the fleet's own (its routes, the Go
// runtime) without one; a removed chain's series go with it; each chain's /{chain_id}/metrics
// still serves that chain's alone, unlabelled.
func TestFleetMetrics(t *testing.T) {
	chains := capturedChains(t)
	a, b := chains[1], chains[2] // minimove, miniwasm
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, a.spec(), b.spec())
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector())
	_, srv := startFleet(t, fleet.Config{Chains: file, DB: "sqlite:" + t.TempDir(), Reload: 50 * time.Millisecond,
		Ingest: fastIngest(), Registry: reg})
	waitHeight(t, srv.URL+"/"+a.id, a.top, 3*time.Minute)
	waitHeight(t, srv.URL+"/"+b.id, b.top, 3*time.Minute)
	if st, _, body := get(t, srv.URL+"/chains", ""); st != http.StatusOK {
		t.Fatalf("/chains: %d %s", st, body)
	}

	mfs := scrape(t, srv.URL)
	both := []string{a.id, b.id}
	slices.Sort(both)
	for _, name := range []string{"rollgate_ingest_indexed_height", "rollgate_ingest_blocks_written_total",
		"rollgate_indexer_api_requests_total", "rollgate_indexer_api_request_duration_seconds"} {
		if got := chainsOf(mfs[name]); !slices.Equal(got, both) {
			t.Errorf("%s: series of chains %q, want %q", name, got, both)
		}
	}
	for _, c := range []*captured{a, b} {
		if h, ok := gauge(mfs, "rollgate_ingest_indexed_height", c.id); !ok || int64(h) != c.top {
			t.Errorf("rollgate_ingest_indexed_height{chain_id=%q} = %v (%v), want %d", c.id, h, ok, c.top)
		}
	}
	for _, name := range []string{"rollgate_indexer_fleet_requests_total", "go_goroutines"} {
		if got := chainsOf(mfs[name]); !slices.Equal(got, []string{""}) {
			t.Errorf("%s: series of chains %q, want the fleet's own only (no chain_id)", name, got)
		}
	}

	series := map[string]int{}
	for _, mf := range mfs {
		for _, id := range chainsOf(mf) {
			series[id]++
		}
	}
	t.Logf("/metrics: %d families; families with series of %s: %d, of %s: %d, unlabelled (the fleet's own): %d",
		len(mfs), a.id, series[a.id], b.id, series[b.id], series[""])

	// A chain's own endpoint is unchanged: its series alone, no chain_id label.
	own := scrape(t, srv.URL+"/"+a.id)
	if got := chainsOf(own["rollgate_ingest_indexed_height"]); !slices.Equal(got, []string{""}) {
		t.Errorf("/%s/metrics: rollgate_ingest_indexed_height of chains %q, want one unlabelled series", a.id, got)
	}
	if _, ok := own["go_goroutines"]; ok {
		t.Errorf("/%s/metrics serves the fleet's own go_goroutines", a.id)
	}

	writeChains(t, file, b.spec())
	deadline := time.Now().Add(10 * time.Second)
	for {
		mfs = scrape(t, srv.URL)
		if got := chainsOf(mfs["rollgate_indexer_api_requests_total"]); slices.Equal(got, []string{b.id}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rollgate_indexer_api_requests_total still of chains %q 10 s after %s's removal",
				chainsOf(mfs["rollgate_indexer_api_requests_total"]), a.id)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for name, mf := range mfs {
		if slices.Contains(chainsOf(mf), a.id) {
			t.Errorf("%s: a series of removed chain %s", name, a.id)
		}
	}
	if _, ok := gauge(mfs, "rollgate_ingest_indexed_height", b.id); !ok {
		t.Errorf("rollgate_ingest_indexed_height of %s gone with %s", b.id, a.id)
	}
	if _, ok := mfs["go_goroutines"]; !ok {
		t.Error("the fleet's own go_goroutines gone")
	}
}
