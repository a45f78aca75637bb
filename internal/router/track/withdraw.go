package track

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// WithdrawalProbe is what is known off the L1 event stream about an OP withdrawal that is not
// claimed yet.
type WithdrawalProbe struct {
	// OutputIndex is the L1 output proposal that covers the withdrawal, 0 while none does
	// (the executor serves no proof yet).
	OutputIndex uint64
	// ClaimableAt is the end of that output's finalization period.
	ClaimableAt time.Time
	// Recheck is how soon to ask again.
	Recheck time.Duration
}

// WithdrawalProber follows an L2 → L1 withdrawal between its L2 tx and its claim: the proof from
// the rollup's executor API (`GET /withdrawal/{sequence}`: output_index and proofs), the output
// proposal on L1 (`/opinit/ophost/v1/bridges/{id}/outputs/{index}`: l1_block_time) and the
// bridge's finalization period.
type WithdrawalProber interface {
	Probe(ctx context.Context, l1, l2 *registry.Chain, sequence uint64) (WithdrawalProbe, error)
}

// RESTProber implements WithdrawalProber over the executor API and the L1's REST gateway. An
// unreachable executor or a withdrawal it does not know yet is "no output yet", not an error:
// the hop stays in OPINIT_WITHDRAWAL_WAITING_FOR_OUTPUT and is asked again after Interval.
type RESTProber struct {
	Interval time.Duration // between probes of one withdrawal (2 s when 0)
	Options  []httpx.Option

	mu      sync.Mutex
	outputs map[string]time.Time     // bridge/index → l1_block_time (immutable once proposed)
	periods map[uint64]time.Duration // bridge → finalization period learnt from L1
}

func (p *RESTProber) interval() time.Duration {
	if p.Interval > 0 {
		return p.Interval
	}
	return 2 * time.Second
}

// Probe implements WithdrawalProber.
func (p *RESTProber) Probe(ctx context.Context, l1, l2 *registry.Chain, sequence uint64) (WithdrawalProbe, error) {
	out := WithdrawalProbe{Recheck: p.interval()}
	if l2.ExecutorURI == "" || len(l1.REST) == 0 {
		return out, nil
	}
	ex, err := httpx.New(l2.ExecutorURI, append([]httpx.Option{httpx.WithMaxAttempts(1), httpx.WithTimeout(5 * time.Second)}, p.Options...)...)
	if err != nil {
		return out, nil
	}
	resp, err := ex.Do(ctx, httpx.Request{Path: "/withdrawal/" + strconv.FormatUint(sequence, 10), ExpectJSON: true})
	if err != nil {
		return out, nil
	}
	var w struct {
		OutputIndex uint64 `json:"output_index"`
		StorageRoot []byte `json:"storage_root"`
	}
	if json.Unmarshal(resp.Body, &w) != nil || w.OutputIndex == 0 || w.StorageRoot == nil {
		return out, nil
	}
	blockTime, err := p.outputTime(ctx, l1, l2.BridgeID, w.OutputIndex)
	if err != nil {
		return out, nil // not proposed on L1 yet (or L1 unreachable): ask again
	}
	period, err := p.period(ctx, l1, l2)
	if err != nil {
		return out, nil
	}
	out.OutputIndex, out.ClaimableAt = w.OutputIndex, blockTime.Add(period)
	return out, nil
}

func (p *RESTProber) outputTime(ctx context.Context, l1 *registry.Chain, bridgeID, index uint64) (time.Time, error) {
	key := fmt.Sprintf("%d/%d", bridgeID, index)
	p.mu.Lock()
	t, ok := p.outputs[key]
	p.mu.Unlock()
	if ok {
		return t, nil
	}
	cl, err := cosmosrest.New(l1.REST[0], p.Options...)
	if err != nil {
		return time.Time{}, err
	}
	var r struct {
		OutputProposal struct {
			L1BlockTime time.Time `json:"l1_block_time"`
		} `json:"output_proposal"`
	}
	if err := cl.Get(ctx, fmt.Sprintf("/opinit/ophost/v1/bridges/%d/outputs/%d", bridgeID, index), nil, 0, &r); err != nil {
		return time.Time{}, err
	}
	p.mu.Lock()
	if p.outputs == nil {
		p.outputs = map[string]time.Time{}
	}
	p.outputs[key] = r.OutputProposal.L1BlockTime
	p.mu.Unlock()
	return r.OutputProposal.L1BlockTime, nil
}

func (p *RESTProber) period(ctx context.Context, l1, l2 *registry.Chain) (time.Duration, error) {
	if l2.OPFinalizationKnown {
		return l2.OPFinalization, nil
	}
	p.mu.Lock()
	d, ok := p.periods[l2.BridgeID]
	p.mu.Unlock()
	if ok {
		return d, nil
	}
	src := &registry.RESTSource{Options: p.Options}
	bridges, err := src.Bridges(ctx, l1)
	if err != nil {
		return 0, err
	}
	for _, b := range bridges {
		if b.ID == l2.BridgeID {
			p.mu.Lock()
			if p.periods == nil {
				p.periods = map[uint64]time.Duration{}
			}
			p.periods[b.ID] = b.FinalizationPeriod
			p.mu.Unlock()
			return b.FinalizationPeriod, nil
		}
	}
	return 0, fmt.Errorf("bridge %d not on %s", l2.BridgeID, l1.ID)
}
