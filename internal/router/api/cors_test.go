package api

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/httpapi/httpapitest"
	"github.com/rollgate/rollgate/internal/router/registry"
)

var samples = map[string]string{"file": "index.html", "chain_id": l1}

func TestCORSPreflightEveryRoute(t *testing.T) {
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Balances: fakeBalances{}, CORS: httpapitest.CORS, Now: func() time.Time { return time.Unix(0, 0) }},
		registry.NewLive(reg), nil, prometheus.NewRegistry())
	httpapitest.CheckCORS(t, h, append((&server{}).routes(), httpapitest.Operational...), samples)
}

func TestMethodNotAllowedEveryRoute(t *testing.T) {
	httpapitest.CheckMethodNotAllowed(t, newServer(t), append((&server{}).routes(), httpapitest.Operational...), samples)
}
