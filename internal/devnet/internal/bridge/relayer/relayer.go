// Package relayer moves packets and deposits between devnet chains the way the real
// off-chain bots do: an IBC relayer that, like rapid-relayer, scans every chain's blocks
// for send_packet / write_acknowledgement / acknowledge_packet / timeout_packet and
// submits MsgRecvPacket, MsgAcknowledgement and MsgTimeout, and an OPinit bridge executor
// that turns L1 initiate_token_deposit events into L2 MsgFinalizeTokenDeposit.
//
// It owns no goroutine: the network calls Step after each block (or on a ticker). Each
// Step reads the blocks produced since the last one and broadcasts what they call for,
// so a message lands on its destination at least one block after its cause.
package relayer

import (
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	channelv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/channel/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	opchildv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Block is what the relayer reads of one committed block: its time, the events of its
// successful transactions (failed ones carry no message events) and the block events.
type Block struct {
	Height      int64
	Time        time.Time
	TxEvents    [][]sim.Event
	BlockEvents []sim.Event
}

// Chain is one chain as the relayer sees it. The engine satisfies it in-process; Comet
// adapts a CometBFT RPC endpoint.
type Chain interface {
	ChainID() string
	LatestHeight(ctx context.Context) (int64, error)
	Block(ctx context.Context, height int64) (Block, error)
	// Broadcast signs msgs with the key of signer (an address whose key the devnet
	// holds), with its next sequence, and submits the tx like broadcast_tx_sync.
	Broadcast(ctx context.Context, signer string, msgs []proto.Message) error
}

// Endpoint is a chain with the relayer's and executor's accounts on it.
type Endpoint struct {
	Chain Chain
	// Relayer signs IBC relay messages on this chain.
	Relayer string
	// Executor signs MsgFinalizeTokenDeposit on this chain (rollups only).
	Executor string
}

// ChannelEnd names one channel end.
type ChannelEnd struct {
	ChainID string
	PortID  string
	Channel string
}

// BridgeLink is an OPinit bridge the executor serves.
type BridgeLink struct {
	BridgeID  uint64
	L1ChainID string
	L2ChainID string
}

// Config configures the relayer.
type Config struct {
	Endpoints []Endpoint
	// Counterparty maps each channel end to the chain at its other end.
	Counterparty map[ChannelEnd]string
	Bridges      []BridgeLink
	// RetryAfter is how many Steps a submitted message may stay unconfirmed before it is
	// submitted again (default 5).
	RetryAfter int
	// MaxMsgsPerTx caps batching (default 5, as the OPinit executor does).
	MaxMsgsPerTx int
	// StartHeights optionally sets the first height to scan per chain (default 1).
	StartHeights map[string]int64
	Logger       *slog.Logger
}

type packetKey struct {
	chain   string // source chain
	port    string
	channel string
	seq     uint64
}

type packet struct {
	key        packetKey
	dstChain   string
	p          *channelv1.Packet
	srcHeight  int64 // source height the send was seen at
	submitted  int   // step of the last submission (0: never)
	timeoutSub int
}

type ackItem struct {
	key       packetKey // of the acknowledged packet (source side)
	p         *channelv1.Packet
	ack       []byte
	dstHeight int64 // height of the chain that wrote the ack
	submitted int
}

type depositKey struct {
	bridge uint64
	seq    uint64
}

type deposit struct {
	key       depositKey
	l2Chain   string
	msg       *opchildv1.MsgFinalizeTokenDeposit
	submitted int
}

type chainState struct {
	ep       Endpoint
	scanned  int64
	lastTime time.Time
}

// Stats counts what the relayer has done (for logs and tests).
type Stats struct {
	RecvSubmitted, AcksSubmitted, TimeoutsSubmitted, DepositsSubmitted int
}

// Relayer is the stepped relayer and executor.
type Relayer struct {
	cfg      Config
	log      *slog.Logger
	chains   map[string]*chainState
	order    []string
	packets  map[packetKey]*packet
	received map[packetKey]bool
	acks     map[packetKey]*ackItem
	deposits map[depositKey]*deposit
	bridges  map[uint64]BridgeLink
	// mu serialises Step with the readers of its state (Stats, Pending), which callers may
	// poll from other goroutines while Run steps.
	mu    sync.Mutex
	step  int
	stats Stats
}

// New validates the configuration and returns a relayer that has scanned nothing yet.
func New(cfg Config) (*Relayer, error) {
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = 5
	}
	if cfg.MaxMsgsPerTx <= 0 {
		cfg.MaxMsgsPerTx = 5
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Relayer{cfg: cfg, log: log, chains: map[string]*chainState{}, packets: map[packetKey]*packet{},
		received: map[packetKey]bool{}, acks: map[packetKey]*ackItem{}, deposits: map[depositKey]*deposit{},
		bridges: map[uint64]BridgeLink{}}
	for _, ep := range cfg.Endpoints {
		if ep.Chain == nil {
			return nil, fmt.Errorf("relayer: endpoint without chain")
		}
		id := ep.Chain.ChainID()
		if _, dup := r.chains[id]; dup {
			return nil, fmt.Errorf("relayer: chain %s configured twice", id)
		}
		start := int64(1)
		if h, ok := cfg.StartHeights[id]; ok && h > 0 {
			start = h
		}
		r.chains[id] = &chainState{ep: ep, scanned: start - 1}
		r.order = append(r.order, id)
	}
	for _, b := range cfg.Bridges {
		if _, ok := r.chains[b.L1ChainID]; !ok {
			return nil, fmt.Errorf("relayer: bridge %d: unknown L1 %s", b.BridgeID, b.L1ChainID)
		}
		l2, ok := r.chains[b.L2ChainID]
		if !ok {
			return nil, fmt.Errorf("relayer: bridge %d: unknown L2 %s", b.BridgeID, b.L2ChainID)
		}
		if l2.ep.Executor == "" {
			return nil, fmt.Errorf("relayer: bridge %d: no executor account on %s", b.BridgeID, b.L2ChainID)
		}
		r.bridges[b.BridgeID] = b
	}
	return r, nil
}

// Stats returns the counters.
func (r *Relayer) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Pending reports how many packets, acknowledgements and deposits await delivery.
func (r *Relayer) Pending() (packets, acks, deposits int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.packets), len(r.acks), len(r.deposits)
}

// Step scans every chain's new blocks, then submits what they call for. Errors of one
// chain do not stop the others; the first is returned. Steps never overlap.
func (r *Relayer) Step(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.step++
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, id := range r.order {
		keep(r.scan(ctx, r.chains[id]))
	}
	keep(r.submitPackets(ctx))
	keep(r.submitAcks(ctx))
	keep(r.submitDeposits(ctx))
	return first
}

func (r *Relayer) scan(ctx context.Context, cs *chainState) error {
	latest, err := cs.ep.Chain.LatestHeight(ctx)
	if err != nil {
		return fmt.Errorf("relayer: %s latest height: %w", cs.ep.Chain.ChainID(), err)
	}
	for h := cs.scanned + 1; h <= latest; h++ {
		b, err := cs.ep.Chain.Block(ctx, h)
		if err != nil {
			return fmt.Errorf("relayer: %s block %d: %w", cs.ep.Chain.ChainID(), h, err)
		}
		for _, evs := range b.TxEvents {
			for _, ev := range evs {
				r.observe(cs, b, ev)
			}
		}
		for _, ev := range b.BlockEvents {
			r.observe(cs, b, ev)
		}
		cs.scanned = h
		cs.lastTime = b.Time
	}
	return nil
}

func attrOf(ev sim.Event, key string) (string, bool) {
	for _, a := range ev.Attributes {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// parsePacket rebuilds a packet from an ICS-04 event's attributes.
func parsePacket(ev sim.Event) (*channelv1.Packet, error) {
	get := func(k string) string { v, _ := attrOf(ev, k); return v }
	seq, err := strconv.ParseUint(get("packet_sequence"), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("packet_sequence: %w", err)
	}
	p := &channelv1.Packet{Sequence: seq, SourcePort: get("packet_src_port"), SourceChannel: get("packet_src_channel"),
		DestinationPort: get("packet_dst_port"), DestinationChannel: get("packet_dst_channel")}
	if v, ok := attrOf(ev, "packet_data_hex"); ok {
		if p.Data, err = hex.DecodeString(v); err != nil {
			return nil, fmt.Errorf("packet_data_hex: %w", err)
		}
	}
	th := &clientv1.Height{}
	if v := get("packet_timeout_height"); v != "" {
		rev, hgt, ok := strings.Cut(v, "-")
		if !ok {
			return nil, fmt.Errorf("packet_timeout_height %q", v)
		}
		if th.RevisionNumber, err = strconv.ParseUint(rev, 10, 64); err != nil {
			return nil, fmt.Errorf("packet_timeout_height: %w", err)
		}
		if th.RevisionHeight, err = strconv.ParseUint(hgt, 10, 64); err != nil {
			return nil, fmt.Errorf("packet_timeout_height: %w", err)
		}
	}
	p.TimeoutHeight = th
	if v := get("packet_timeout_timestamp"); v != "" {
		if p.TimeoutTimestamp, err = strconv.ParseUint(v, 10, 64); err != nil {
			return nil, fmt.Errorf("packet_timeout_timestamp: %w", err)
		}
	}
	return p, nil
}

func (r *Relayer) observe(cs *chainState, b Block, ev sim.Event) {
	id := cs.ep.Chain.ChainID()
	switch ev.Type {
	case "send_packet":
		p, err := parsePacket(ev)
		if err != nil {
			r.log.Warn("relayer: bad send_packet", "chain", id, "height", b.Height, "err", err)
			return
		}
		dst, ok := r.cfg.Counterparty[ChannelEnd{id, p.SourcePort, p.SourceChannel}]
		if !ok {
			return // a channel this relayer does not serve
		}
		if _, ok := r.chains[dst]; !ok {
			return
		}
		k := packetKey{id, p.SourcePort, p.SourceChannel, p.Sequence}
		if !r.received[k] {
			r.packets[k] = &packet{key: k, dstChain: dst, p: p, srcHeight: b.Height}
		}
	case "recv_packet", "write_acknowledgement":
		p, err := parsePacket(ev)
		if err != nil {
			r.log.Warn("relayer: bad "+ev.Type, "chain", id, "height", b.Height, "err", err)
			return
		}
		src, ok := r.cfg.Counterparty[ChannelEnd{id, p.DestinationPort, p.DestinationChannel}]
		if !ok {
			return
		}
		k := packetKey{src, p.SourcePort, p.SourceChannel, p.Sequence}
		r.received[k] = true
		delete(r.packets, k)
		if ev.Type == "write_acknowledgement" {
			v, _ := attrOf(ev, "packet_ack_hex")
			ack, err := hex.DecodeString(v)
			if err != nil {
				r.log.Warn("relayer: bad packet_ack_hex", "chain", id, "height", b.Height, "err", err)
				return
			}
			if _, ok := r.chains[src]; ok {
				r.acks[k] = &ackItem{key: k, p: p, ack: ack, dstHeight: b.Height}
			}
		}
	case "acknowledge_packet", "timeout_packet":
		p, err := parsePacket(ev)
		if err != nil {
			return
		}
		k := packetKey{id, p.SourcePort, p.SourceChannel, p.Sequence}
		delete(r.packets, k)
		delete(r.acks, k)
		delete(r.received, k)
	case "initiate_token_deposit":
		r.observeDeposit(id, b, ev)
	case "finalize_token_deposit":
		seqStr, _ := attrOf(ev, "l1_sequence")
		seq, err := strconv.ParseUint(seqStr, 10, 64)
		if err != nil {
			return
		}
		for bid, bl := range r.bridges {
			if bl.L2ChainID == id {
				delete(r.deposits, depositKey{bid, seq})
			}
		}
	}
}

func (r *Relayer) observeDeposit(id string, b Block, ev sim.Event) {
	get := func(k string) string { v, _ := attrOf(ev, k); return v }
	bid, err := strconv.ParseUint(get("bridge_id"), 10, 64)
	if err != nil {
		return
	}
	bl, ok := r.bridges[bid]
	if !ok || bl.L1ChainID != id {
		return
	}
	seq, err := strconv.ParseUint(get("l1_sequence"), 10, 64)
	if err != nil {
		return
	}
	data, err := hex.DecodeString(get("data"))
	if err != nil {
		r.log.Warn("relayer: bad deposit data", "bridge", bid, "sequence", seq, "err", err)
		return
	}
	ex := r.chains[bl.L2ChainID].ep.Executor
	msg := &opchildv1.MsgFinalizeTokenDeposit{
		Sender: ex, From: get("from"), To: get("to"),
		Amount:   &basev1beta1.Coin{Denom: get("l2_denom"), Amount: get("amount")},
		Sequence: seq, Height: uint64(b.Height), BaseDenom: get("l1_denom"), Data: data,
	}
	if len(msg.Data) == 0 {
		msg.Data = nil
	}
	k := depositKey{bid, seq}
	r.deposits[k] = &deposit{key: k, l2Chain: bl.L2ChainID, msg: msg}
}

// due reports whether an item submitted at step s should be (re)submitted now.
func (r *Relayer) due(s int) bool { return s == 0 || r.step-s >= r.cfg.RetryAfter }

func revisionHeight(chainID string, h int64) *clientv1.Height {
	return &clientv1.Height{RevisionNumber: ibc.RevisionNumber(chainID), RevisionHeight: uint64(h)}
}

// timeoutState judges a packet by its destination's last scanned block: provable means
// the destination has passed the timeout (MsgTimeout can be proven at that height);
// hopeless means the destination's next block already would refuse the packet, so a
// MsgRecvPacket is pointless and the relayer waits for the timeout to become provable.
func timeoutState(p *channelv1.Packet, dst *chainState) (provable, hopeless bool) {
	th := p.TimeoutHeight
	if th != nil && (th.RevisionNumber != 0 || th.RevisionHeight != 0) {
		gte := func(h int64) bool {
			self := revisionHeight(dst.ep.Chain.ChainID(), h)
			return self.RevisionNumber > th.RevisionNumber || (self.RevisionNumber == th.RevisionNumber && self.RevisionHeight >= th.RevisionHeight)
		}
		if gte(dst.scanned) {
			return true, true
		}
		if gte(dst.scanned + 1) {
			hopeless = true
		}
	}
	// Timestamps: all devnet chains share one clock and the source checks the timestamp
	// against its own block time, so the destination's last block time is the judge.
	if p.TimeoutTimestamp != 0 && !dst.lastTime.IsZero() && uint64(dst.lastTime.UnixNano()) >= p.TimeoutTimestamp {
		return true, true
	}
	return false, hopeless
}

type outbox map[string]map[string][]proto.Message // chain → signer → msgs

func (o outbox) add(chain, signer string, m proto.Message) {
	if o[chain] == nil {
		o[chain] = map[string][]proto.Message{}
	}
	o[chain][signer] = append(o[chain][signer], m)
}

func (r *Relayer) flush(ctx context.Context, o outbox) error {
	var first error
	for _, id := range r.order {
		bySigner := o[id]
		signers := make([]string, 0, len(bySigner))
		for s := range bySigner {
			signers = append(signers, s)
		}
		sort.Strings(signers)
		for _, s := range signers {
			msgs := bySigner[s]
			for i := 0; i < len(msgs); i += r.cfg.MaxMsgsPerTx {
				end := min(i+r.cfg.MaxMsgsPerTx, len(msgs))
				if err := r.chains[id].ep.Chain.Broadcast(ctx, s, msgs[i:end]); err != nil {
					r.log.Warn("relayer: broadcast failed", "chain", id, "signer", s, "err", err)
					if first == nil {
						first = fmt.Errorf("relayer: broadcast to %s: %w", id, err)
					}
				}
			}
		}
	}
	return first
}

func sortedPackets(m map[packetKey]*packet) []*packet {
	out := make([]*packet, 0, len(m))
	for _, p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return lessKey(out[i].key, out[j].key) })
	return out
}

func lessKey(a, b packetKey) bool {
	if a.chain != b.chain {
		return a.chain < b.chain
	}
	if a.channel != b.channel {
		return a.channel < b.channel
	}
	if a.port != b.port {
		return a.port < b.port
	}
	return a.seq < b.seq
}

func (r *Relayer) submitPackets(ctx context.Context) error {
	o := outbox{}
	for _, pk := range sortedPackets(r.packets) {
		src, dst := r.chains[pk.key.chain], r.chains[pk.dstChain]
		provable, hopeless := timeoutState(pk.p, dst)
		if hopeless && !provable {
			continue
		}
		if provable {
			if !r.due(pk.timeoutSub) || src.ep.Relayer == "" {
				continue
			}
			pk.timeoutSub = r.step
			o.add(src.ep.Chain.ChainID(), src.ep.Relayer, &channelv1.MsgTimeout{
				Packet: pk.p, ProofUnreceived: []byte{0}, ProofHeight: revisionHeight(dst.ep.Chain.ChainID(), dst.scanned),
				NextSequenceRecv: pk.p.Sequence, Signer: src.ep.Relayer,
			})
			r.stats.TimeoutsSubmitted++
			continue
		}
		if !r.due(pk.submitted) || dst.ep.Relayer == "" {
			continue
		}
		pk.submitted = r.step
		o.add(dst.ep.Chain.ChainID(), dst.ep.Relayer, &channelv1.MsgRecvPacket{
			Packet:          pk.p,
			ProofCommitment: ibc.Commitment(pk.p.TimeoutTimestamp, pk.p.TimeoutHeight, pk.p.Data),
			ProofHeight:     revisionHeight(src.ep.Chain.ChainID(), pk.srcHeight),
			Signer:          dst.ep.Relayer,
		})
		r.stats.RecvSubmitted++
	}
	return r.flush(ctx, o)
}

func (r *Relayer) submitAcks(ctx context.Context) error {
	keys := make([]packetKey, 0, len(r.acks))
	for k := range r.acks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })
	o := outbox{}
	for _, k := range keys {
		a := r.acks[k]
		src := r.chains[k.chain]
		if !r.due(a.submitted) || src.ep.Relayer == "" {
			continue
		}
		a.submitted = r.step
		dstID := r.cfg.Counterparty[ChannelEnd{k.chain, k.port, k.channel}]
		o.add(k.chain, src.ep.Relayer, &channelv1.MsgAcknowledgement{
			Packet: a.p, Acknowledgement: a.ack, ProofAcked: ibc.Commitment(0, nil, a.ack),
			ProofHeight: revisionHeight(dstID, a.dstHeight), Signer: src.ep.Relayer,
		})
		r.stats.AcksSubmitted++
	}
	return r.flush(ctx, o)
}

func (r *Relayer) submitDeposits(ctx context.Context) error {
	ds := make([]*deposit, 0, len(r.deposits))
	for _, d := range r.deposits {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].key.bridge != ds[j].key.bridge {
			return ds[i].key.bridge < ds[j].key.bridge
		}
		return ds[i].key.seq < ds[j].key.seq
	})
	o := outbox{}
	for _, d := range ds {
		if !r.due(d.submitted) {
			continue
		}
		d.submitted = r.step
		o.add(d.l2Chain, d.msg.Sender, d.msg)
		r.stats.DepositsSubmitted++
	}
	return r.flush(ctx, o)
}

// Run steps the relayer every interval until ctx ends (errors are logged and retried on
// the next tick). It blocks; start it in the caller's goroutine of choice.
func (r *Relayer) Run(ctx context.Context, every time.Duration) {
	Tick(ctx, every, r.Step, r.log, "relayer step failed")
}
