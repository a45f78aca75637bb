package ingest

import "github.com/rollgate/rollgate/internal/store"

// writeSize is how many heights a writer puts in its next transaction when faults repeat: a
// write that fails transiently (a connection ended, a failover, a busy file) is tried again
// with half as many heights, down to one, so that some transaction commits between two
// faults however often they come; every commit doubles the size again, up to the writer's
// own bound. Without faults it stays at that bound and changes nothing. One writer goroutine
// owns each writeSize.
//
// Splitting never changes what is stored: every writer here takes consecutive heights in
// order and records its height in the same transaction, so two halves commit exactly what
// the whole would have.
type writeSize struct{ n int } // 0: no limit yet (the writer's bound)

// take is the size of the next write out of avail heights.
func (s *writeSize) take(avail int) int {
	if s.n <= 0 || s.n > avail {
		return avail
	}
	return s.n
}

// done records the outcome of a write of tried heights, with bound the writer's largest; it
// says whether the caller should write again at once with the smaller size instead of
// handling err itself (a transient error of a write of more than one height).
func (s *writeSize) done(tried, bound int, err error) (split bool) {
	switch {
	case err == nil:
		if s.n > 0 {
			s.n *= 2
			if s.n >= bound {
				s.n = 0
			}
		}
		return false
	case store.IsTransient(err) && tried > 1:
		s.n = tried / 2
		return true
	default:
		return false
	}
}
