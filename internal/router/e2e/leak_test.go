package e2e

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: the servers, clients
// and pipelines started here must all stop when their test ends.
// With ROLLGATE_TRACK_CHILD_REGISTRY set, the binary is TestTrackRestart's tracker process
// instead.
func TestMain(m *testing.M) {
	if dir := os.Getenv("ROLLGATE_TRACK_CHILD_REGISTRY"); dir != "" {
		os.Exit(trackerChild(dir))
	}
	goleak.VerifyTestMain(m)
}
