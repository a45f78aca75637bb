package relayer

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Comet reads a chain over its CometBFT RPC (like rapid-relayer: latest height, then
// /block for the time and /block_results for the events) and broadcasts through Submit,
// which signs the messages for the signer and sends the tx (e.g. txcodec + comet
// BroadcastTxSync).
type Comet struct {
	ID     string
	Client *comet.Client
	Submit func(ctx context.Context, signer string, msgs []proto.Message) error
}

var _ Chain = (*Comet)(nil)

// ChainID implements Chain.
func (c *Comet) ChainID() string { return c.ID }

// LatestHeight implements Chain.
func (c *Comet) LatestHeight(ctx context.Context) (int64, error) { return c.Client.LatestHeight(ctx) }

// Block implements Chain.
func (c *Comet) Block(ctx context.Context, h int64) (Block, error) {
	blk, err := c.Client.Block(ctx, h)
	if err != nil {
		return Block{}, err
	}
	res, err := c.Client.BlockResults(ctx, h)
	if err != nil {
		return Block{}, err
	}
	out := Block{Height: h}
	if blk.Block != nil {
		out.Time = blk.Block.Header.Time
	}
	for _, tx := range res.TxsResults {
		if tx == nil || tx.Code != 0 {
			continue
		}
		out.TxEvents = append(out.TxEvents, convert(tx.Events))
	}
	out.BlockEvents = convert(res.FinalizeBlockEvents)
	return out, nil
}

// Broadcast implements Chain.
func (c *Comet) Broadcast(ctx context.Context, signer string, msgs []proto.Message) error {
	if c.Submit == nil {
		return fmt.Errorf("relayer: chain %s has no submitter", c.ID)
	}
	return c.Submit(ctx, signer, msgs)
}

func convert(evs []comet.Event) []sim.Event {
	out := make([]sim.Event, 0, len(evs))
	for _, e := range evs {
		se := sim.Event{Type: e.Type}
		for _, a := range e.Attributes {
			se.Attributes = append(se.Attributes, sim.Attribute{Key: a.Key, Value: a.Value, Index: a.Index})
		}
		out = append(out, se)
	}
	return out
}
