package relayer_test

import (
	"net/http/httptest"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
)

func get(t *testing.T, c *simtest.Chain, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	c.Mux().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Body.String()
}
