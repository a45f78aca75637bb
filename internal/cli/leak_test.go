package cli

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// TestMain fails the package's tests when a goroutine outlives them: the servers, clients
// and pipelines started here must all stop when their test ends.
func TestMain(m *testing.M) {
	var opts []goleak.Option
	for _, fn := range httpapi.LingeringGoroutines {
		opts = append(opts, goleak.IgnoreAnyFunction(fn))
	}
	goleak.VerifyTestMain(m, opts...)
}
