package httpapi

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: the servers, clients
// and background loops started here must all stop when their test ends.
func TestMain(m *testing.M) {
	var opts []goleak.Option
	for _, fn := range LingeringGoroutines {
		opts = append(opts, goleak.IgnoreAnyFunction(fn))
	}
	goleak.VerifyTestMain(m, opts...)
}
