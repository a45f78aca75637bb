package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/store"
)

// proposerResolver maps a header's proposer_address (a consensus address) to the OPinit
// validator, from the validator list fetched once and refreshed when an unknown proposer shows
// up (at most once per refreshEvery, so a chain whose proposer is not an opchild validator
// does not cost a REST call per block).
type proposerResolver struct {
	src          Source
	log          *slog.Logger
	refreshEvery time.Duration

	mu        sync.Mutex
	byCons    map[string]*store.Proposer
	lastFetch time.Time
	fetched   bool
	noList    bool // the chain answered that it has no validator list (said once)
}

func newProposerResolver(src Source, log *slog.Logger, refreshEvery time.Duration) *proposerResolver {
	return &proposerResolver{src: src, log: log, refreshEvery: refreshEvery, byCons: map[string]*store.Proposer{}}
}

// Resolve returns the proposer, or nil when it cannot be resolved: a chain without the opchild
// module, or a proposer outside its validator set, is logged and never stops ingestion. A
// lookup that failed for a passing reason (node unreachable, 5xx other than 501) is returned
// as an error instead, so the height is fetched again rather than stored without its proposer
// for good.
func (r *proposerResolver) Resolve(ctx context.Context, consAddr []byte) (*store.Proposer, error) {
	if len(consAddr) == 0 {
		return nil, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.byCons[string(consAddr)]; ok {
		return p, nil
	}
	if r.fetched && time.Since(r.lastFetch) < r.refreshEvery {
		return nil, nil
	}
	r.lastFetch = time.Now()
	vals, err := r.src.Validators(ctx)
	if err != nil {
		if transientLookup(err) {
			return nil, fmt.Errorf("validator lookup: %w", err)
		}
		// A chain without the opchild module (Initia's L1) says so on every ask: ask again
		// only every refreshEvery, and say it once.
		r.fetched = true
		if ctx.Err() == nil && !r.noList {
			r.noList = true
			r.log.Warn("proposer lookup failed; storing blocks without proposer", "err", err)
		}
		return nil, nil
	}
	r.fetched = true
	for _, v := range vals {
		addr, err := pubKeyAddress(v.ConsensusPubKeyType, v.ConsensusPubKey)
		if err != nil {
			r.log.Warn("validator with unusable consensus key", "operator_address", v.OperatorAddress, "err", err)
			continue
		}
		// identity is always "" in rollytics: opchild validators carry no description.
		r.byCons[string(addr)] = &store.Proposer{Moniker: v.Moniker, Identity: "", OperatorAddress: v.OperatorAddress}
	}
	p, ok := r.byCons[string(consAddr)]
	if !ok {
		r.log.Warn("block proposer is not in the opchild validator set", "proposer_address", consAddr)
	}
	return p, nil
}

// transientLookup tells a validator lookup that may succeed when repeated from one that says
// the chain has no such list (404, 501, gRPC Unimplemented).
func transientLookup(err error) bool {
	if httpx.IsUnreachable(err) {
		return true
	}
	var e *cosmosrest.Error
	return errors.As(err, &e) && e.HTTPStatus >= 500 && e.HTTPStatus != http.StatusNotImplemented && e.Code != 12
}
