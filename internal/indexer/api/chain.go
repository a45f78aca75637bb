package api

import (
	"errors"

	"github.com/rollgate/rollgate/internal/apierr"
)

// ChainWatcher is the ingestion's view of the chain it follows (ingest.Pipeline has it).
type ChainWatcher interface {
	// ChainFault is nil while the node serves the stored chain, else an error whose
	// ReadyReason() is CHAIN_MISMATCH, CHAIN_RESET or UPSTREAM_BEHIND.
	ChainFault() error
	// ChainFaultChanged is closed at the next change of ChainFault.
	ChainFaultChanged() <-chan struct{}
	// ChainResets counts the times the store was dropped to index another chain.
	ChainResets() int64
}

// The stream errors of a chain that changed under the indexer.
const (
	chainMismatch = "CHAIN_MISMATCH"
	chainReset    = "CHAIN_RESET"
)

// chainInterrupt ends the open streams when the node turns out to serve another chain: an
// item after the last one sent would not continue what the client holds. A node behind the
// store is waited for, so it ends nothing.
func chainInterrupt(c ChainWatcher) func() (<-chan struct{}, func() error) {
	return func() (<-chan struct{}, func() error) {
		resets, changed := c.ChainResets(), c.ChainFaultChanged()
		return changed, func() error {
			fault := c.ChainFault()
			var rr interface{ ReadyReason() string }
			reason := ""
			if errors.As(fault, &rr) {
				reason = rr.ReadyReason()
			}
			switch {
			case reason == chainReset || c.ChainResets() != resets:
				msg := "the node serves another chain; the store was dropped to index it from its first height: reconnect without Last-Event-ID"
				return (&apierr.Error{Code: apierr.Unavailable, Message: msg, Expected: true}).WithDetails(chainReset)
			case reason == chainMismatch:
				return (&apierr.Error{Code: apierr.Unavailable, Message: fault.Error(), Expected: true}).WithDetails(chainMismatch)
			}
			return nil
		}
	}
}
