package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	tests := []struct {
		name, stream string
		want         []Event
	}{
		{"named with id", "event: block\nid: 7\ndata: {\"a\":1}\n\n", []Event{{ID: "7", Name: "block", Data: []byte(`{"a":1}`)}}},
		{"default name, comments skipped", ": ok\n\ndata: x\n\n: heartbeat\n\n", []Event{{Name: "message", Data: []byte("x")}}},
		{"lines joined", "data: a\ndata: b\n\n", []Event{{Name: "message", Data: []byte("a\nb")}}},
		{"id carries over", "id: 3\ndata: a\n\ndata: b\n\n", []Event{{ID: "3", Name: "message", Data: []byte("a")}, {ID: "3", Name: "message", Data: []byte("b")}}},
		{"CRLF and no space", "event:e\r\ndata:v\r\n\r\n", []Event{{Name: "e", Data: []byte("v")}}},
		{"no data: not dispatched", "event: e\nid: 9\n\ndata: v\n\n", []Event{{ID: "9", Name: "message", Data: []byte("v")}}},
		{"cut off at the end: not dispatched", "data: a\n\ndata: b\n", []Event{{Name: "message", Data: []byte("a")}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.stream))
			var got []Event
			for {
				ev, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d events %+v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if got[i].ID != tc.want[i].ID || got[i].Name != tc.want[i].Name || string(got[i].Data) != string(tc.want[i].Data) {
					t.Errorf("event %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestLastEventIDOnDispatch: an id counts once its event is dispatched, as EventSource keeps
// it; a stream cut inside an event leaves the id of the last whole one.
func TestLastEventIDOnDispatch(t *testing.T) {
	r := NewReader(strings.NewReader("id: 1\ndata: a\n\nid: 2\ndata: b"))
	if ev, err := r.Next(); err != nil || ev.ID != "1" || r.LastEventID() != "1" {
		t.Fatalf("first event %+v %v, last id %q", ev, err, r.LastEventID())
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("cut event: %v, want io.EOF", err)
	}
	if got := r.LastEventID(); got != "1" {
		t.Errorf("after a cut event the last id is %q, want 1", got)
	}
}
