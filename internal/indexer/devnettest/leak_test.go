package devnettest

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: the servers, clients
// and pipelines started here must all stop when their test ends. Re-executed as a crash-loop
// child (crash_test.go), the binary only ingests.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(runChild())
	}
	goleak.VerifyTestMain(m)
}
