package testutil

import (
	"runtime"
	"sync/atomic"
	"time"
)

// HeapPeak measures what streaming costs in memory: it collects garbage, reads the heap in use,
// then samples it every millisecond until the returned stop is called, which gives the heap in
// use before and the most seen while sampling.
func HeapPeak() (stop func() (before, peak uint64)) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapInuse
	var most atomic.Uint64
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			select {
			case <-quit:
				return
			case <-time.After(time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > most.Load() {
				most.Store(m.HeapInuse)
			}
		}
	}()
	return func() (uint64, uint64) {
		close(quit)
		<-done
		return base, most.Load()
	}
}
