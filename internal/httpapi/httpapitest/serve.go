package httpapitest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// Serve serves h with httpapi.Serve, the transport a deployment puts it on, on a fresh local
// listener until the test ends, and returns the listener's address. Serve must end with the
// test's cancellation, nothing else.
func Serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.Serve(ctx, ln, h, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String()
}
