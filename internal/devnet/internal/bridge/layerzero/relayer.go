package layerzero

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/relayer"
	"github.com/rollgate/rollgate/internal/devnet/internal/ethereum"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
)

// Config configures the DVN/executor bot.
type Config struct {
	Eth *ethereum.Chain
	// L1 is the L1 as the IBC relayer sees it (blocks and signed MsgExecute), with Bot's key.
	L1 *relayer.EngineChain
	// Bot signs on both chains: the same secp256k1 key is an eth_secp256k1 account on the
	// L1 (BotL1, bech32) and an Ethereum account.
	Bot   *ecdsa.PrivateKey
	BotL1 string
	// Delay is how long after the source block's time a packet is verified; the delivery
	// follows at the next step after the verification lands.
	Delay time.Duration
	// Deliver off: packets are seen and counted but never verified (a stuck DVN).
	Deliver bool
	Now     func() time.Time
	Logger  *slog.Logger
}

// Stats counts packets by how far they went, and the compose messages delivered.
type Stats struct {
	Sent, Verified, Delivered, Composed int
}

// Relayer is the DVN and executor of both directions: it reads PacketSent from each
// chain's blocks, and once the delay has passed submits the verification on the destination
// (EndpointV2.verify on Ethereum, msglib::commit_verification on the L1), then, when that
// verification is in a block, the delivery (EndpointV2.lzReceive, oapp_receive::lz_receive).
type Relayer struct {
	cfg     Config
	deliver atomic.Bool

	mu           sync.Mutex
	ethScanned   int64
	l1Scanned    int64
	packets      map[[32]byte]*packet // by GUID
	order        [][32]byte
	stats        Stats
	verifiedSeen map[[32]byte]bool
	// composes are the L1's ComposeSent not delivered yet, in order.
	composes []*compose
}

// compose is one compose message the executor delivers with the composer's lz_compose.
type compose struct {
	from, to  move.Addr
	guid      []byte
	index     uint16
	message   []byte
	submitted bool
	done      bool
}

type packet struct {
	p         Packet
	options   []byte // the sender's executor options (an lzCompose option asks for the compose)
	sentAt    time.Time
	verifyTx  bool // verification submitted
	verified  bool // verification in a block
	deliverTx bool
	delivered bool
}

// New returns the bot.
func New(cfg Config) *Relayer {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Relayer{cfg: cfg, packets: map[[32]byte]*packet{}, verifiedSeen: map[[32]byte]bool{}}
	r.deliver.Store(cfg.Deliver)
	return r
}

// SetDeliver turns delivery on or off at run time.
func (r *Relayer) SetDeliver(on bool) { r.deliver.Store(on) }

// Stats are the counters so far.
func (r *Relayer) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Run steps every interval until ctx ends.
func (r *Relayer) Run(ctx context.Context, every time.Duration) {
	relayer.Tick(ctx, every, r.Step, r.cfg.Logger, "layerzero step failed")
}

// Step scans both chains' new blocks and submits what is due.
func (r *Relayer) Step(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scanEth()
	if err := r.scanL1(ctx); err != nil {
		return err
	}
	now := r.cfg.Now()
	var errs []error
	for _, cm := range r.composes {
		if cm.submitted || cm.done || !r.deliver.Load() || !r.composeAsked(cm) {
			continue
		}
		if err := r.l1Tx(ctx, cm.to, ComposerModule, ComposeFunction, bcsAddr(cm.from), bcsBytes(cm.guid),
			binary.LittleEndian.AppendUint16(nil, cm.index), bcsBytes(cm.message), bcsBytes(nil)); err != nil {
			errs = append(errs, err)
			continue
		}
		cm.submitted = true
	}
	for _, g := range r.order {
		pk := r.packets[g]
		switch {
		case pk.delivered || !r.deliver.Load():
		case pk.verified && !pk.deliverTx:
			if err := r.submitDelivery(ctx, pk); err != nil {
				errs = append(errs, err)
				continue
			}
			pk.deliverTx = true
		case !pk.verifyTx && !now.Before(pk.sentAt.Add(r.cfg.Delay)):
			if err := r.submitVerify(ctx, pk); err != nil {
				errs = append(errs, err)
				continue
			}
			pk.verifyTx = true
		}
	}
	return errors.Join(errs...)
}

func (r *Relayer) seen(p Packet, options []byte, at time.Time) {
	if _, ok := r.packets[p.GUID]; ok {
		return
	}
	r.packets[p.GUID] = &packet{p: p, options: options, sentAt: at}
	r.order = append(r.order, p.GUID)
	r.stats.Sent++
}

func (r *Relayer) markVerified(guid [32]byte) {
	if pk, ok := r.packets[guid]; ok && !pk.verified {
		pk.verified = true
		r.stats.Verified++
	}
}

func (r *Relayer) markDelivered(guid [32]byte) {
	if pk, ok := r.packets[guid]; ok && !pk.delivered {
		pk.delivered = true
		r.stats.Delivered++
	}
}

// scanEth reads the Ethereum chain's new blocks: PacketSent of the endpoint, and the
// verifications and deliveries of packets from the L1 (keyed back to their GUID).
func (r *Relayer) scanEth() {
	top := r.cfg.Eth.Height()
	for h := r.ethScanned + 1; h <= top; h++ {
		b := r.cfg.Eth.Block(h)
		at := time.Unix(int64(b.Header.Time), 0)
		for _, rc := range b.Receipts {
			for _, l := range rc.Logs {
				if l.Address != EVMEndpoint || len(l.Topics) == 0 {
					continue
				}
				switch l.Topics[0] {
				case TopicPacketSent:
					vals, err := packetSentData.Unpack(l.Data)
					if err != nil {
						continue
					}
					if p, err := DecodePacket(vals[0].([]byte)); err == nil {
						r.seen(p, vals[1].([]byte), at)
					}
				case TopicPacketVerified, TopicPacketDelivered:
					args := packetDeliveredData
					if l.Topics[0] == TopicPacketVerified {
						args = packetVerifiedData
					}
					vals, err := args.Unpack(l.Data)
					if err != nil {
						continue
					}
					o := originOf(vals[0])
					if g, ok := r.byOrigin(o, EIDEthereum); ok {
						if l.Topics[0] == TopicPacketVerified {
							r.markVerified(g)
						} else {
							r.markDelivered(g)
						}
					}
				}
			}
		}
		r.ethScanned = h
	}
}

// byOrigin finds a packet by its inbound origin on dst.
func (r *Relayer) byOrigin(o Origin, dst uint32) ([32]byte, bool) {
	for _, g := range r.order {
		p := r.packets[g].p
		if p.DstEID == dst && p.SrcEID == o.SrcEid && p.Sender == o.Sender && p.Nonce == o.Nonce {
			return g, true
		}
	}
	return [32]byte{}, false
}

// scanL1 reads the L1's new blocks for the endpoint's Move events.
func (r *Relayer) scanL1(ctx context.Context) error {
	top, err := r.cfg.L1.LatestHeight(ctx)
	if err != nil {
		return err
	}
	for h := r.l1Scanned + 1; h <= top; h++ {
		b, err := r.cfg.L1.Block(ctx, h)
		if err != nil {
			return fmt.Errorf("layerzero: L1 block %d: %w", h, err)
		}
		for _, evs := range b.TxEvents {
			for _, ev := range evs {
				r.l1Event(ev, b.Time)
			}
		}
		r.l1Scanned = h
	}
	return nil
}

func (r *Relayer) l1Event(ev sim.Event, at time.Time) {
	if ev.Type != move.EventType {
		return
	}
	var tag, data string
	for _, a := range ev.Attributes {
		switch a.Key {
		case "type_tag":
			tag = a.Value
		case "data":
			data = a.Value
		}
	}
	var f struct {
		EncodedPacket string `json:"encoded_packet"`
		Options       string `json:"options"`
		From, To      string
		GUID          string `json:"guid"`
		Index         uint16 `json:"index"`
		Message       string `json:"message"`
		SrcEID        uint32 `json:"src_eid"`
		Sender        string `json:"sender"`
		Nonce         string `json:"nonce"` // u64: a JSON string
	}
	switch tag {
	case TagPacketSent, TagPacketVerified, TagPacketDelivered, TagComposeSent, TagComposeDelivered:
	default:
		return
	}
	if json.Unmarshal([]byte(data), &f) != nil {
		return
	}
	switch tag {
	case TagPacketSent:
		b, err := hex.DecodeString(strings.TrimPrefix(f.EncodedPacket, "0x"))
		if err != nil {
			return
		}
		opts, _ := hex.DecodeString(strings.TrimPrefix(f.Options, "0x"))
		if p, err := DecodePacket(b); err == nil {
			r.seen(p, opts, at)
		}
		return
	case TagComposeSent, TagComposeDelivered:
		r.l1Compose(tag, f.From, f.To, f.GUID, f.Index, f.Message)
		return
	}
	sender, err := hex.DecodeString(strings.TrimPrefix(f.Sender, "0x"))
	if err != nil || len(sender) != 32 {
		return
	}
	nonce, err := strconv.ParseUint(f.Nonce, 10, 64)
	if err != nil {
		return
	}
	g, ok := r.byOrigin(Origin{SrcEid: f.SrcEID, Sender: [32]byte(sender), Nonce: nonce}, EIDL1)
	if !ok {
		return
	}
	if tag == TagPacketVerified {
		r.markVerified(g)
	} else {
		r.markDelivered(g)
	}
}

func (r *Relayer) submitVerify(ctx context.Context, pk *packet) error {
	p := pk.p
	switch p.DstEID {
	case EIDEthereum:
		in, err := EndpointVerifyCall(Origin{p.SrcEID, p.Sender, p.Nonce}, common.BytesToAddress(p.Receiver[12:]), p.PayloadHash())
		if err != nil {
			return err
		}
		return r.ethTx(EVMEndpoint, in)
	case EIDL1:
		h := p.PayloadHash()
		return r.l1Tx(ctx, L1Endpoint, "msglib", "commit_verification", bcsBytes(p.Header()), bcsBytes(h[:]))
	}
	return fmt.Errorf("layerzero: no endpoint %d", p.DstEID)
}

func (r *Relayer) submitDelivery(ctx context.Context, pk *packet) error {
	p := pk.p
	switch p.DstEID {
	case EIDEthereum:
		in, err := EndpointReceiveCall(Origin{p.SrcEID, p.Sender, p.Nonce}, common.BytesToAddress(p.Receiver[12:]), p.GUID, p.Message)
		if err != nil {
			return err
		}
		return r.ethTx(EVMEndpoint, in)
	case EIDL1:
		return r.l1Tx(ctx, L1OFT, "oapp_receive", "lz_receive", bcsU32(p.SrcEID), bcsBytes(p.Sender[:]), bcsU64(p.Nonce),
			bcsBytes(p.GUID[:]), bcsBytes(p.Message), bcsBytes(nil))
	}
	return fmt.Errorf("layerzero: no endpoint %d", p.DstEID)
}

// ethTx signs and submits an EIP-1559 tx from the bot.
func (r *Relayer) ethTx(to common.Address, data []byte) error {
	c := r.cfg.Eth
	from := crypto.PubkeyToAddress(r.cfg.Bot.PublicKey)
	cid := new(big.Int).SetUint64(c.ChainID())
	fee := new(big.Int).Mul(c.BaseFee(), big.NewInt(2))
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: cid, Nonce: c.PendingNonce(from), GasTipCap: new(big.Int), GasFeeCap: fee,
		Gas: 500_000, To: &to, Value: new(big.Int), Data: data})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(cid), r.cfg.Bot)
	if err != nil {
		return err
	}
	_, err = c.Submit(signed)
	return err
}

func (r *Relayer) l1Tx(ctx context.Context, mod move.Addr, module, fn string, args ...[]byte) error {
	msg := &movev1.MsgExecute{Sender: r.cfg.BotL1, ModuleAddress: mod.String(), ModuleName: module, FunctionName: fn, Args: args}
	return r.cfg.L1.Broadcast(ctx, r.cfg.BotL1, []proto.Message{msg})
}

// BCS encodings of the entry function arguments.
func bcsU32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func bcsU64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
func bcsBytes(b []byte) []byte {
	out := uleb(nil, uint64(len(b)))
	return append(out, b...)
}

func uleb(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// l1Compose records a ComposeSent the executor will deliver, or a ComposeDelivered that
// settles one.
func (r *Relayer) l1Compose(tag, from, to, guidHex string, index uint16, message string) {
	f, err1 := move.ParseAddr(from)
	t, err2 := move.ParseAddr(to)
	guid, err3 := hex.DecodeString(strings.TrimPrefix(guidHex, "0x"))
	if err1 != nil || err2 != nil || err3 != nil {
		return
	}
	if tag == TagComposeDelivered {
		for _, cm := range r.composes {
			if !cm.done && cm.from == f && cm.to == t && cm.index == index && string(cm.guid) == string(guid) {
				cm.done = true
				r.stats.Composed++
			}
		}
		return
	}
	msg, err := hex.DecodeString(strings.TrimPrefix(message, "0x"))
	if err != nil {
		return
	}
	r.composes = append(r.composes, &compose{from: f, to: t, guid: guid, index: index, message: msg})
}

// composeAsked reports whether the packet's sender paid for the compose: its options carry an
// executor lzCompose option for the message's index (the executor composes nothing else).
// Options of a packet the bot did not see (sent before it started) are not checked.
func (r *Relayer) composeAsked(cm *compose) bool {
	if len(cm.guid) != 32 {
		return false
	}
	pk, ok := r.packets[[32]byte(cm.guid)]
	if !ok {
		return true
	}
	return HasComposeOption(pk.options, cm.index)
}

// bcsAddr is a Move address argument (32 bytes).
func bcsAddr(a move.Addr) []byte { return append([]byte(nil), a[:]...) }
