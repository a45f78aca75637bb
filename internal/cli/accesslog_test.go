package cli

import (
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// TestWrappersPassRefusalsOn: what the transport refuses in front of an access log is counted
// by the API behind it (the fleet's cross views: fleet.TestCrossViewsPassRefusalsOn).
func TestWrappersPassRefusalsOn(t *testing.T) {
	reg := prometheus.NewRegistry()
	api := httpapi.New(httpapi.Options{Namespace: "wrap_test", Registry: reg}, nil)
	for name, h := range map[string]any{
		"access log": accessLog(api, slog.New(slog.DiscardHandler)),
	} {
		r, ok := h.(httpapi.Rejecter)
		if !ok {
			t.Fatalf("%s: not an httpapi.Rejecter", name)
		}
		r.Rejected(431)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got float64
	for _, mf := range mfs {
		if mf.GetName() != "wrap_test_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if labels["route"] == "rejected" && labels["code"] == "431" {
				got = m.GetCounter().GetValue()
			}
		}
	}
	if got != 1 {
		t.Errorf(`wrap_test_requests_total{route="rejected",code="431"} = %v, want 1`, got)
	}
}
