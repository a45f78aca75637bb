package fleet_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/indexer/fleet"
)

// TestFleetCountsRefusals: a request the transport refuses before routing (a malformed escape
// in the path names no chain) is the JSON 400 and counted in the fleet's own request metrics.
func TestFleetCountsRefusals(t *testing.T) {
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file)
	_, srv := startFleet(t, fleet.Config{Chains: file, DB: "sqlite:" + t.TempDir(), Reload: -1, Ingest: fastIngest()})
	for _, target := range []string{"/nope%zz/status", "/some-chain-1/indexer/block/v1/blocks/%zz"} {
		c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		_, _ = io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: fleet.test\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c.Close()
		if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(b), "MALFORMED_REQUEST") {
			t.Errorf("%s: %d %q", target, resp.StatusCode, b)
		}
	}
	var got float64
	for _, m := range scrape(t, srv.URL)["rollgate_indexer_fleet_requests_total"].GetMetric() {
		labels := map[string]string{}
		for _, lp := range m.GetLabel() {
			labels[lp.GetName()] = lp.GetValue()
		}
		if labels["route"] == "rejected" && labels["code"] == "400" {
			got += m.GetCounter().GetValue()
		}
	}
	if got != 2 {
		t.Errorf(`rollgate_indexer_fleet_requests_total{route="rejected",code="400"} = %v, want 2`, got)
	}
}
