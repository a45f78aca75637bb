package cli

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// TestMain fails the package's tests when a goroutine outlives them: the servers, clients
// and pipelines started here must all stop when their test ends.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, leakOptions()...)
}

// leakOptions are goleak's exceptions: what fasthttp leaves behind by design.
func leakOptions(more ...goleak.Option) []goleak.Option {
	for _, fn := range httpapi.LingeringGoroutines {
		more = append(more, goleak.IgnoreAnyFunction(fn))
	}
	return more
}
