// Package sse reads a Server-Sent Events stream (text/event-stream) as the HTML standard's
// EventSource parses it: the router client follows a transfer's status with it, and the
// APIs' tests read their streams with it.
package sse

import (
	"bufio"
	"bytes"
	"io"
	"strings"
)

// Event is one dispatched event. Name is "message" when the stream named none; ID is the
// stream's last event id at dispatch (it carries over events that set none).
type Event struct {
	ID   string
	Name string
	Data []byte
}

// Reader parses events from a stream.
type Reader struct {
	s *bufio.Scanner
	// pending is the id read so far (EventSource's "last event ID buffer"); last becomes it
	// only when an event is dispatched, so a connection cut inside an event never makes a
	// client resume past an event it did not get.
	pending, last string
}

// NewReader reads events from r.
func NewReader(r io.Reader) *Reader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 4<<10), 16<<20) // grows for a long event
	return &Reader{s: s}
}

// Next returns the next event; comments (heartbeats) are skipped. io.EOF when the stream
// ends; an event cut off by the end is not dispatched, as EventSource does.
func (r *Reader) Next() (Event, error) {
	var data bytes.Buffer
	name, hasData := "", false
	for r.s.Scan() {
		line := r.s.Text()
		if line == "" {
			r.last = r.pending
			if !hasData {
				name = ""
				continue
			}
			if name == "" {
				name = "message"
			}
			return Event{ID: r.pending, Name: name, Data: bytes.TrimSuffix(data.Bytes(), []byte("\n"))}, nil
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			name = value
		case "id":
			if !strings.Contains(value, "\x00") {
				r.pending = value
			}
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
			hasData = true
		}
	}
	if err := r.s.Err(); err != nil {
		return Event{}, err
	}
	return Event{}, io.EOF
}

// LastEventID is the id a reconnecting client sends as Last-Event-ID.
func (r *Reader) LastEventID() string { return r.last }
