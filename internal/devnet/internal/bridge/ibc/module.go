// Package ibc is the devnet's IBC transfer stack as a sim.Module: ICS-04 packet handling
// on pre-opened channels, the ICS-20 transfer application (escrow/unescrow, voucher
// mint/burn with denom traces), the packet-forward middleware (multi-hop memos with
// asynchronous acknowledgements) and Initia's ibc-hooks memo routing. Every message emits
// the events of ibc-go v8.7 / PFM v8.2 / Initia x/ibc-hooks in their real order, with the
// real packet data, acknowledgement and commitment bytes
// (docs/chain-events.md §2–§4).
package ibc

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	channelv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/channel/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// StoreName is the KV namespace of the module.
const StoreName = "ibc"

// TransferModule is the ICS-20 module name (module account, event `module` values).
const TransferModule = "transfer"

// DefaultForwardTimeout is the packet-forward timeout Initia's chains configure
// (ibc-go's DefaultRelativePacketTimeoutTimestamp).
const DefaultForwardTimeout = 10 * time.Minute

// Type URLs of the messages the module executes.
const (
	URLTransfer       = "/ibc.applications.transfer.v1.MsgTransfer"
	URLRecvPacket     = "/ibc.core.channel.v1.MsgRecvPacket"
	URLAcknowledgment = "/ibc.core.channel.v1.MsgAcknowledgement"
	URLTimeout        = "/ibc.core.channel.v1.MsgTimeout"
	URLUpdateClient   = "/ibc.core.client.v1.MsgUpdateClient"
)

// Channel is one OPEN, UNORDERED transfer channel end that exists from genesis, with its
// connection and light client (the handshakes are not simulated).
type Channel struct {
	PortID       string `json:"port_id"`
	ChannelID    string `json:"channel_id"`
	ConnectionID string `json:"connection_id"`
	ClientID     string `json:"client_id"`

	CounterpartyChainID      string `json:"counterparty_chain_id"`
	CounterpartyPortID       string `json:"counterparty_port_id"`
	CounterpartyChannelID    string `json:"counterparty_channel_id"`
	CounterpartyConnectionID string `json:"counterparty_connection_id"`
	CounterpartyClientID     string `json:"counterparty_client_id"`
	// CounterpartyPrefix is the bech32 prefix of the counterparty's accounts (traffic).
	CounterpartyPrefix string `json:"counterparty_prefix,omitempty"`
}

// HookExecutor runs an ibc-hooks message after the received funds landed on the
// intermediary account. The engine implements it for the VMs it models; env is a
// branch that is discarded when the call fails (the ack then becomes
// "ibc <vm> hook error: <err>").
type HookExecutor interface {
	ExecIBCHook(env sim.Env, vm vmkind.Kind, sender []byte, message json.RawMessage, funds sim.Coin) error
}

// Callback describes the outcome an async callback is told about.
type Callback struct {
	Channel  string // source channel of the packet
	Sequence uint64
	Ack      []byte // acknowledgement bytes (nil on timeout)
	Success  bool   // the ack is not an error ack
	Timeout  bool
}

// CallbackExecutor is implemented by a HookExecutor that also runs ibc-hooks async
// callbacks (Move `ibc_ack`/`ibc_timeout`, Solidity `ibc_ack(uint64,bool)` /
// `ibc_timeout(uint64)`, Wasm sudo) with the packet's sender as caller. callback is the
// memo's async_callback object; env is a branch discarded on error (the module then
// emits hook_failed).
type CallbackExecutor interface {
	ExecIBCCallback(env sim.Env, vm vmkind.Kind, sender []byte, callback json.RawMessage, cb Callback) error
}

// Config configures one chain's IBC module.
type Config struct {
	Channels []Channel
	// HookVM selects the ibc-hooks middleware: vmkind.Move (L1, minimove), vmkind.EVM
	// (minievm), vmkind.Wasm (miniwasm) or "" for chains without it.
	HookVM vmkind.Kind
	// Hooks executes hook messages; nil makes hook execution a no-op (the transfer to
	// the intermediary still happens, Move hooks still emit their `execute` event).
	Hooks HookExecutor
	// ForwardTimeout is PFM's default forward timeout (DefaultForwardTimeout when 0).
	ForwardTimeout time.Duration
	// Traffic enables seeded transfers (nil: none).
	Traffic *Traffic
	// NFT turns on ICS-721 (nil: no nft-transfer channels).
	NFT *NFTConfig
}

// Module is the IBC transfer stack of one chain.
type Module struct {
	cfg Config
}

var _ sim.Module = (*Module)(nil)

// New returns the module.
func New(cfg Config) *Module {
	if cfg.ForwardTimeout <= 0 {
		cfg.ForwardTimeout = DefaultForwardTimeout
	}
	return &Module{cfg: cfg}
}

// Name implements sim.Module.
func (m *Module) Name() string { return "ibc" }

// Needs implements sim.Needer: transfers answer with their packet sequence, and receive
// callbacks run in a branch of the Env.
func (m *Module) Needs() []sim.Extra { return sim.HostExtras }

// Handlers implements sim.Module.
func (m *Module) Handlers() map[string]sim.Handler {
	return map[string]sim.Handler{
		URLTransfer:       sim.Typed(m.handleTransfer),
		URLRecvPacket:     sim.Typed(m.handleRecv),
		URLAcknowledgment: sim.Typed(m.handleAck),
		URLTimeout:        sim.Typed(m.handleTimeout),
		URLUpdateClient:   sim.Typed(m.handleUpdateClient),
		URLNFTTransfer:    sim.Typed(m.handleNFTTransfer),
	}
}

// InitGenesis implements sim.Module: it writes the channels (with their connections and
// clients) and starts every send sequence at 1.
func (m *Module) InitGenesis(env sim.Env) error {
	kv := env.Store(StoreName)
	for _, ch := range m.cfg.Channels {
		if ch.PortID == "" || ch.ChannelID == "" || ch.CounterpartyChannelID == "" {
			return fmt.Errorf("ibc genesis: incomplete channel %+v", ch)
		}
		if ch.CounterpartyPortID == "" {
			ch.CounterpartyPortID = ch.PortID
		}
		b, err := json.Marshal(ch)
		if err != nil {
			return fmt.Errorf("ibc genesis: %w", err)
		}
		kv.Set(channelKey(ch.PortID, ch.ChannelID), b)
		kv.Set(nextSeqKey(ch.PortID, ch.ChannelID), []byte("1"))
	}
	return m.nftGenesis(env)
}

// Forgettable implements sim.Forgetter: a packet's receipt and acknowledgement on the
// destination are forgotten with the blocks that wrote them. The devnet's relayer is the
// only one, it drops a packet from its queue once it sees recv_packet or
// write_acknowledgement and never relays it again, and no query route reads them, so
// only the redundant-relay check could: nothing the chain produces changes. Kept, they
// grew the state by ~0.4 records a block on the L1 for as long as the devnet ran.
func (m *Module) Forgettable(_ time.Time, store, key string, _ []byte) bool {
	return store == StoreName && (strings.HasPrefix(key, "receipt/") || strings.HasPrefix(key, "ack/"))
}

// --- state keys and accessors ---

func channelKey(port, channel string) string { return "channel/" + port + "/" + channel }
func nextSeqKey(port, channel string) string { return "nextSeqSend/" + port + "/" + channel }
func seqSuffix(seq uint64) string            { return fmt.Sprintf("%020d", seq) }
func commitmentKey(port, channel string, seq uint64) string {
	return "commitment/" + port + "/" + channel + "/" + seqSuffix(seq)
}
func receiptKey(port, channel string, seq uint64) string {
	return "receipt/" + port + "/" + channel + "/" + seqSuffix(seq)
}
func ackKey(port, channel string, seq uint64) string {
	return "ack/" + port + "/" + channel + "/" + seqSuffix(seq)
}
func traceKey(hash string) string { return "trace/" + hash }
func inFlightKey(channel, port string, seq uint64) string {
	return "inflight/" + channel + "/" + port + "/" + seqSuffix(seq)
}
func clientHeightKey(clientID string) string { return "clientHeight/" + clientID }
func callbackKey(port, channel string, seq uint64) string {
	return "callback/" + port + "/" + channel + "/" + seqSuffix(seq)
}

func getChannel(kv sim.KVReader, port, channel string) (Channel, bool) {
	b, ok := kv.Get(channelKey(port, channel))
	if !ok {
		return Channel{}, false
	}
	var ch Channel
	if err := json.Unmarshal(b, &ch); err != nil {
		return Channel{}, false
	}
	return ch, true
}

func getUint(kv sim.KVReader, key string) uint64 {
	b, ok := kv.Get(key)
	if !ok {
		return 0
	}
	n, _ := strconv.ParseUint(string(b), 10, 64)
	return n
}

// inFlight is PFM's record of a forwarded packet, keyed by the outgoing hop.
type inFlight struct {
	OriginalSenderAddress string `json:"original_sender_address"`
	RefundChannelID       string `json:"refund_channel_id"`
	RefundPortID          string `json:"refund_port_id"`
	PacketSrcChannelID    string `json:"packet_src_channel_id"`
	PacketSrcPortID       string `json:"packet_src_port_id"`
	PacketTimeoutStamp    uint64 `json:"packet_timeout_timestamp"`
	PacketTimeoutRevision uint64 `json:"packet_timeout_revision"`
	PacketTimeoutHeight   uint64 `json:"packet_timeout_height"`
	PacketData            []byte `json:"packet_data"`
	RefundSequence        uint64 `json:"refund_sequence"`
	RetriesRemaining      int    `json:"retries_remaining"`
	Timeout               int64  `json:"timeout"`
	Nonrefundable         bool   `json:"nonrefundable"`
}

// refundPacket rebuilds the hop-1 packet the in-flight record answers.
func (f inFlight) refundPacket() *channelv1.Packet {
	return &channelv1.Packet{
		Sequence:           f.RefundSequence,
		SourcePort:         f.PacketSrcPortID,
		SourceChannel:      f.PacketSrcChannelID,
		DestinationPort:    f.RefundPortID,
		DestinationChannel: f.RefundChannelID,
		Data:               f.PacketData,
		TimeoutHeight:      &clientv1.Height{RevisionNumber: f.PacketTimeoutRevision, RevisionHeight: f.PacketTimeoutHeight},
		TimeoutTimestamp:   f.PacketTimeoutStamp,
	}
}

// LookupTrace returns the full trace path of an ibc/ denom known to the chain's state.
func LookupTrace(kv sim.KVReader, ibcDenom string) (string, bool) {
	h := ibcDenom
	if len(h) > 4 && h[:4] == "ibc/" {
		h = h[4:]
	}
	b, ok := kv.Get(traceKey(h))
	return string(b), ok
}

func bech32(prefix string, b []byte) string {
	s, err := address.Bech32(prefix, b)
	if err != nil {
		return ""
	}
	return s
}
