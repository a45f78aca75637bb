package store

import "sync"

// writeSignal wakes the readers of this process that wait for the next block write.
type writeSignal struct {
	mu sync.Mutex
	ch chan struct{} // closed at the next write; nil until someone waits
}

func (s *writeSignal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *writeSignal) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// Written returns a channel closed when WriteBlocks next commits in this process, so a
// follower beside the writer (the internal-tx follower) starts on new heights at once instead
// of at its next poll. Take the channel before reading the height it waits past: a write
// between the two then still closes it.
func (d *DB) Written() <-chan struct{} { return d.written.wait() }
