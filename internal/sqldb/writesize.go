package sqldb

// WriteSize is how many items (heights, rows) a writer puts in its next transaction when
// faults repeat: a write that fails transiently (IsTransient: a connection ended, a failover,
// a busy file) is tried again with half as many items, down to one, so that some transaction
// commits between two faults however often they come; every commit doubles the size again,
// up to the writer's own bound. Without faults it stays at that bound and changes nothing.
// One writer goroutine owns each WriteSize; the zero value is ready.
//
// Splitting must never change what is stored: a writer using it takes its items in order
// and records its progress in the same transaction, so two halves commit exactly what the
// whole would have. The indexer's writers and the router's tracker share it.
type WriteSize struct{ n int } // 0: no limit yet (the writer's bound)

// Take is the size of the next write out of avail items.
func (s *WriteSize) Take(avail int) int {
	if s.n <= 0 || s.n > avail {
		return avail
	}
	return s.n
}

// Done records the outcome of a write of tried items, with bound the writer's largest; it
// says whether the caller should write again at once with the smaller size instead of
// handling err itself (a transient error of a write of more than one item).
func (s *WriteSize) Done(tried, bound int, err error) (split bool) {
	switch {
	case err == nil:
		if s.n > 0 {
			s.n *= 2
			if s.n >= bound {
				s.n = 0
			}
		}
		return false
	case IsTransient(err) && tried > 1:
		s.n = tried / 2
		return true
	default:
		return false
	}
}
