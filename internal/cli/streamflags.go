package cli

import (
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// streamFlags are the live-stream settings of both APIs (internal/httpapi's StreamOptions),
// under the same names on the indexer and the router, as the CORS flags are.
type streamFlags struct {
	MaxSubscribers int
	MaxPerIP       int
	Heartbeat      time.Duration
	Buffer         int
}

func (c *streamFlags) register(f *flags) {
	f.Int(&c.MaxSubscribers, "stream-max-subscribers", 10000, "open event streams this process serves; past it a stream request is answered 503 with Retry-After", "ROLLGATE_STREAM_MAX_SUBSCRIBERS", "STREAM_MAX_SUBSCRIBERS")
	f.Int(&c.MaxPerIP, "stream-max-per-ip", 100, "open event streams of one client address (the connection's, not a forwarded header)", "ROLLGATE_STREAM_MAX_PER_IP", "STREAM_MAX_PER_IP")
	f.Duration(&c.Heartbeat, "stream-heartbeat", 15*time.Second, "interval of the comment lines that keep idle proxies from closing a stream", "ROLLGATE_STREAM_HEARTBEAT", "STREAM_HEARTBEAT")
	f.Int(&c.Buffer, "stream-buffer", 64, "events queued per stream client; a client that stays this far behind is disconnected with a resume point", "ROLLGATE_STREAM_BUFFER", "STREAM_BUFFER")
}

func (c streamFlags) validate() error {
	switch {
	case c.MaxSubscribers <= 0:
		return usagef("--stream-max-subscribers (ROLLGATE_STREAM_MAX_SUBSCRIBERS) must be positive")
	case c.MaxPerIP <= 0:
		return usagef("--stream-max-per-ip (ROLLGATE_STREAM_MAX_PER_IP) must be positive")
	case c.Heartbeat < time.Second:
		return usagef("--stream-heartbeat (ROLLGATE_STREAM_HEARTBEAT) must be at least 1s")
	case c.Buffer <= 0:
		return usagef("--stream-buffer (ROLLGATE_STREAM_BUFFER) must be positive")
	}
	return nil
}

func (c streamFlags) options() httpapi.StreamOptions {
	return httpapi.StreamOptions{MaxSubscribers: c.MaxSubscribers, MaxPerIP: c.MaxPerIP, Heartbeat: c.Heartbeat, Buffer: c.Buffer}
}
