package cli

import (
	"net/http"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/httpapi/sse"
)

// TestStreamFlags: defaults, environment, flags winning over it, and refused values.
func TestStreamFlags(t *testing.T) {
	tests := []struct {
		name    string
		vars    map[string]string
		args    []string
		want    httpapi.StreamOptions
		wantErr string
	}{
		{name: "defaults", want: httpapi.StreamOptions{MaxSubscribers: 10000, MaxPerIP: 100, Heartbeat: 15 * time.Second, Buffer: 64}},
		{name: "environment", vars: map[string]string{"ROLLGATE_STREAM_MAX_SUBSCRIBERS": "20000", "ROLLGATE_STREAM_MAX_PER_IP": "5", "ROLLGATE_STREAM_HEARTBEAT": "30s", "ROLLGATE_STREAM_BUFFER": "16"},
			want: httpapi.StreamOptions{MaxSubscribers: 20000, MaxPerIP: 5, Heartbeat: 30 * time.Second, Buffer: 16}},
		{name: "flags win", vars: map[string]string{"ROLLGATE_STREAM_MAX_PER_IP": "5"}, args: []string{"--stream-max-per-ip", "7", "--stream-heartbeat", "2s"},
			want: httpapi.StreamOptions{MaxSubscribers: 10000, MaxPerIP: 7, Heartbeat: 2 * time.Second, Buffer: 64}},
		{name: "zero subscribers", args: []string{"--stream-max-subscribers", "0"}, wantErr: "ROLLGATE_STREAM_MAX_SUBSCRIBERS"},
		{name: "heartbeat too short", vars: map[string]string{"ROLLGATE_STREAM_HEARTBEAT": "10ms"}, wantErr: "at least 1s"},
		{name: "negative buffer", args: []string{"--stream-buffer", "-1"}, wantErr: "ROLLGATE_STREAM_BUFFER"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c streamFlags
			err := parseGroup(tc.vars, tc.args, &c)
			if !checkErr(t, err, tc.wantErr) {
				return
			}
			if got := c.options(); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// firstStreamEvent opens an event stream and returns its first event.
func firstStreamEvent(t *testing.T, url string) sse.Event {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Errorf("%s: %v", url, err)
		return sse.Event{}
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("%s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
		return sse.Event{}
	}
	ev, err := sse.NewReader(resp.Body).Next()
	if err != nil {
		t.Errorf("%s: %v", url, err)
	}
	return ev
}
