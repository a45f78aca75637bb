package fleet

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// text is what g gathers, in the text format.
func text(t *testing.T, g prometheus.Gatherer) string {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// TestLabelledGatherer: every series of a chain's registry gets chain_id, a chain_id it
// already had is replaced rather than doubled, and the chain's own registry is left as it was
// (its /{chain_id}/metrics stays unlabelled).
func TestLabelledGatherer(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "x_total", Help: "x."}, []string{"route"})
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "y", Help: "y."}, []string{"chain_id"})
	reg.MustRegister(c, g)
	c.WithLabelValues("a").Add(2)
	g.WithLabelValues("stale").Set(1)
	want := `# HELP x_total x.
# TYPE x_total counter
x_total{chain_id="c-1",route="a"} 2
# HELP y y.
# TYPE y gauge
y{chain_id="c-1"} 1
`
	for range 2 { // the second gather sees the registry as the first left it
		if got := text(t, labelled{id: "c-1", g: reg}); got != want {
			t.Fatalf("labelled:\n%s\nwant:\n%s", got, want)
		}
	}
	own := strings.ReplaceAll(strings.ReplaceAll(want, `chain_id="c-1",`, ""), `chain_id="c-1"`, `chain_id="stale"`)
	if got := text(t, reg); got != own {
		t.Fatalf("the chain's own registry changed:\n%s\nwant:\n%s", got, own)
	}
}

// rejects counts the refusals handed to it.
type rejects struct {
	http.Handler
	n int
}

func (r *rejects) Rejected(int) { r.n++ }

// TestCrossViewsPassRefusalsOn: what the transport refuses in front of a chain's cross views
// is counted by the chain's API behind them.
func TestCrossViewsPassRefusalsOn(t *testing.T) {
	chain := &rejects{}
	var h http.Handler = crossViews{chain: chain}
	r, ok := h.(httpapi.Rejecter)
	if !ok {
		t.Fatal("cross views: not an httpapi.Rejecter")
	}
	r.Rejected(431)
	if chain.n != 1 {
		t.Errorf("the chain's API counted %d refusals, want 1", chain.n)
	}
}
