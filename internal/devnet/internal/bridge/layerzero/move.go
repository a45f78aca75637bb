package layerzero

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"strconv"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
)

// The L1's LayerZero packages and token. The OFT's package and metadata addresses are the
// registry's (its oft_address and the asset's move/ denom); the endpoint's is derived.
var (
	L1OFT      = mustAddr("0x1e8c0fb3a0ddee518632ff8429612da8c6ba19f202390e72c977286bd8e6972b")
	L1USDTMeta = mustAddr("0x13646f5188844c54306f38be5d74e3ad8d02a6b9d538ce540b30e5845b27712d")
	L1Endpoint = move.Addr(crypto.Keccak256Hash([]byte("rollgate/devnet/layerzero/endpoint_v2")))
	// L1SendLibrary is the send library the L1's PacketSent names (uln_302).
	L1SendLibrary = move.Addr(crypto.Keccak256Hash([]byte("rollgate/devnet/layerzero/uln_302")))
	// L1Treasury receives the messaging fees paid on the L1.
	L1Treasury = move.Addr(crypto.Keccak256Hash([]byte("rollgate/devnet/layerzero/l1-treasury")))
)

// L1NativeFee is the messaging fee on the L1, in its fee denom (uinit), whatever the message.
const L1NativeFee uint64 = 100_000

// L1USDTDenom is the bank denom of the L1's USDT.
var L1USDTDenom = move.MoveDenom(L1USDTMeta)

func mustAddr(s string) move.Addr {
	a, err := move.ParseAddr(s)
	if err != nil {
		panic("layerzero: address " + s + ": " + err.Error())
	}
	return a
}

// The Move event type tags (endpoint_v2 channels.move, OFT oft_core.move).
var (
	TagPacketSent      = L1Endpoint.String() + "::channels::PacketSent"
	TagPacketVerified  = L1Endpoint.String() + "::channels::PacketVerified"
	TagPacketDelivered = L1Endpoint.String() + "::channels::PacketDelivered"
	TagOftSent         = L1OFT.String() + "::oft_core::OftSent"
	TagOftReceived     = L1OFT.String() + "::oft_core::OftReceived"
)

// storeName is the KV namespace of the L1 packages' state (nonces, verified payloads).
const storeName = "layerzero"

// Move OFT abort codes (oft.move, oft_core.move, the endpoint's channels.move).
const (
	codeInsufficientBalance = 2
	codeNoPeer              = 0x10001
	codeSlippage            = 0x10002
	codeFee                 = 0x10003
	codeNoPayload           = 0x60001
	codeUnauthorized        = 0x50001
)

// L1Module is the genesis side of the L1's LayerZero packages: the USDT metadata object,
// owned by the OFT (its mint and burn refs).
type L1Module struct {
	// Fee is the chain's fee denom, in which the messaging fee is paid.
	Fee string
}

var _ sim.Module = L1Module{}

// Name implements sim.Module.
func (L1Module) Name() string { return storeName }

// InitGenesis implements sim.Module.
func (L1Module) InitGenesis(env sim.Env) error {
	return move.RegisterAsset(env, L1USDTMeta, L1OFT, "Tether USD", "USDT", SharedDecimals)
}

// Handlers implements sim.Module (the packages run inside the Move VM's MsgExecute).
func (L1Module) Handlers() map[string]sim.Handler { return nil }

// Routes implements sim.Module.
func (L1Module) Routes(*http.ServeMux, sim.QueryAt) {}

// Traffic implements sim.Module.
func (L1Module) Traffic(*rand.Rand, sim.Query, []sim.Account) []sim.Intent { return nil }

// OFTPackage is the L1's USDT OFT (a mint/burn OFT_FA): oft::send_withdraw and the quote
// views, and oapp_receive::lz_receive, which the executor calls for a verified packet.
type OFTPackage struct {
	FeeDenom string
	// Peers are the OApps on other endpoints, by eid (Ethereum's adapter).
	Peers map[uint32][32]byte
}

// Entry implements move.Package.
func (p *OFTPackage) Entry(module, fn string) (func(*move.Call) error, uint64, bool) {
	switch module + "::" + fn {
	case "oft::send_withdraw":
		return p.sendWithdraw, 120_000, true
	case "oapp_receive::lz_receive":
		return p.lzReceive, 90_000, true
	}
	return nil, 0, false
}

// View implements move.Package.
func (p *OFTPackage) View(q sim.Query, module, fn string, a *move.Args) (string, bool, error) {
	switch module + "::" + fn {
	case "oft::quote_send":
		// (user_sender, dst_eid, to, amount_ld, min_amount_ld, extra_options, compose_message,
		// oft_cmd, pay_in_zro): (native_fee, zro_fee)
		if a.Len() != 9 {
			return "", true, fmt.Errorf("VM error: status NUMBER_OF_ARGUMENTS_MISMATCH of type Verification with message expected 9 arguments, got %d", a.Len())
		}
		dst, err := a.U32(1)
		if err != nil {
			return "", true, move.BadArgs(err)
		}
		if _, ok := p.Peers[dst]; !ok {
			return "", true, move.AbortAt(L1OFT, "oapp_core", codeNoPeer)
		}
		return `["` + strconv.FormatUint(L1NativeFee, 10) + `","0"]`, true, nil
	case "oft::token":
		return strconv.Quote(L1USDTMeta.String()), true, nil
	case "oft::balance":
		owner, err := a.Addr(0)
		if err != nil {
			return "", true, move.BadArgs(err)
		}
		return strconv.Quote(q.Balance(owner.Account(), L1USDTDenom).String()), true, nil
	case "oft::shared_decimals":
		return strconv.Itoa(SharedDecimals), true, nil
	}
	return "", false, nil
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }

func (p *OFTPackage) sendWithdraw(c *move.Call) error {
	a := c.Args
	dst, e1 := a.U32(0)
	to, e2 := a.Bytes(1)
	amount, e3 := a.U64(2)
	minAmount, e4 := a.U64(3)
	options, e5 := a.Bytes(4)
	compose, e6 := a.Bytes(5)
	_, e7 := a.Bytes(6) // oft_cmd: unused by the default OFT
	fee, e8 := a.U64(7)
	zro, e9 := a.U64(8)
	if err := move.ArgsErr(e1, e2, e3, e4, e5, e6, e7, e8, e9); err != nil {
		return err
	}
	peer, ok := p.Peers[dst]
	if !ok || len(to) != 32 {
		return move.AbortAt(L1OFT, "oapp_core", codeNoPeer)
	}
	if amount < minAmount {
		return move.AbortAt(L1OFT, "oft_core", codeSlippage)
	}
	if zro != 0 || fee < L1NativeFee {
		return move.AbortAt(L1Endpoint, "endpoint", codeFee)
	}
	// oft.move asserts the balance itself (EINSUFFICIENT_BALANCE) before withdrawing.
	if c.Env().Balance(c.Sender().Account(), L1USDTDenom).Cmp(new(big.Int).SetUint64(amount)) < 0 {
		return move.AbortAt(L1OFT, "oft", codeInsufficientBalance)
	}
	if err := c.Withdraw(L1USDTMeta, amount); err != nil {
		return err
	}
	if err := c.BurnEvent(L1USDTMeta, amount); err != nil {
		return err
	}
	// Only the quoted fee is taken; send_withdraw refunds the rest (refund_fees).
	if err := c.PayCoin(L1Treasury, p.FeeDenom, L1NativeFee); err != nil {
		return err
	}
	kv := c.Env().Store(storeName)
	nk := fmt.Sprintf("n/%d/%x", dst, peer)
	var n uint64
	if b, ok := kv.Get(nk); ok {
		n, _ = strconv.ParseUint(string(b), 10, 64)
	}
	n++
	kv.Set(nk, []byte(strconv.FormatUint(n, 10)))
	var to32 [32]byte
	copy(to32[:], to)
	pk := Packet{Nonce: n, SrcEID: EIDL1, Sender: [32]byte(L1OFT), DstEID: dst, Receiver: peer, Message: OFTComposeMessage(to32, amount, [32]byte(c.Sender()), compose)}
	pk.GUID = GUID(n, EIDL1, pk.Sender, dst, peer)
	c.Emit(TagPacketSent,
		move.Field{Name: "encoded_packet", Value: hex0x(pk.Encode())},
		move.Field{Name: "options", Value: hex0x(options)},
		move.Field{Name: "send_library", Value: L1SendLibrary.String()})
	amt := strconv.FormatUint(amount, 10)
	c.Emit(TagOftSent,
		move.Field{Name: "guid", Value: hex0x(pk.GUID[:])},
		move.Field{Name: "dst_eid", Value: dst},
		move.Field{Name: "from_address", Value: c.Sender().String()},
		move.Field{Name: "amount_sent_ld", Value: amt},
		move.Field{Name: "amount_received_ld", Value: amt})
	return nil
}

func inKey(srcEID uint32, sender []byte, nonce uint64) string {
	return fmt.Sprintf("in/%d/%x/%d", srcEID, sender, nonce)
}

// lzReceive is oapp_receive::lz_receive(src_eid, sender, nonce, guid, message, extra_data):
// the endpoint clears the verified payload (PacketDelivered), then the OFT credits the
// recipient (mint), hands a compose message to the endpoint when the send carried one
// (ComposeSent), and emits OftReceived.
func (p *OFTPackage) lzReceive(c *move.Call) error {
	a := c.Args
	src, e1 := a.U32(0)
	sender, e2 := a.Bytes(1)
	nonce, e3 := a.U64(2)
	guid, e4 := a.Bytes(3)
	msg, e5 := a.Bytes(4)
	_, e6 := a.Bytes(5)
	if err := move.ArgsErr(e1, e2, e3, e4, e5, e6); err != nil {
		return err
	}
	if peer, ok := p.Peers[src]; !ok || len(sender) != 32 || [32]byte(sender) != peer || len(guid) != 32 {
		return move.AbortAt(L1OFT, "oapp_core", codeNoPeer)
	}
	kv := c.Env().Store(storeName)
	k := inKey(src, sender, nonce)
	h, ok := kv.Get(k)
	if want := PayloadHash([32]byte(guid), msg); !ok || string(h) != hex.EncodeToString(want[:]) {
		return move.AbortAt(L1Endpoint, "channels", codeNoPayload)
	}
	kv.Delete(k)
	c.Emit(TagPacketDelivered,
		move.Field{Name: "src_eid", Value: src},
		move.Field{Name: "sender", Value: hex0x(sender)},
		move.Field{Name: "nonce", Value: strconv.FormatUint(nonce, 10)},
		move.Field{Name: "receiver", Value: L1OFT.String()})
	to, amount, err := DecodeOFTMessage(msg)
	if err != nil {
		return move.AbortAt(L1OFT, "oft_core", codeNoPayload)
	}
	if err := c.MintTo(move.Addr(to), L1USDTMeta, amount); err != nil {
		return err
	}
	if len(msg) > composeOffset {
		// A send with a compose: the recipient (a composer) gets the compose message through
		// the endpoint, index 0 (compose.go).
		if err := sendCompose(c, L1OFT, move.Addr(to), guid, 0, ComposeMessage(nonce, src, amount, msg[composeOffset:])); err != nil {
			return err
		}
	}
	c.Emit(TagOftReceived,
		move.Field{Name: "guid", Value: hex0x(guid)},
		move.Field{Name: "src_eid", Value: src},
		move.Field{Name: "to_address", Value: move.Addr(to).String()},
		move.Field{Name: "amount_received_ld", Value: strconv.FormatUint(amount, 10)})
	return nil
}

// EndpointPackage is the L1's endpoint_v2 as far as the DVN needs it:
// msglib::commit_verification(packet_header, payload_hash), which only the devnet's DVN may
// call, records the payload hash and emits PacketVerified.
type EndpointPackage struct {
	DVN move.Addr
}

// Entry implements move.Package.
func (e *EndpointPackage) Entry(module, fn string) (func(*move.Call) error, uint64, bool) {
	if module+"::"+fn == "msglib::commit_verification" {
		return e.commit, 60_000, true
	}
	return nil, 0, false
}

// View implements move.Package.
func (e *EndpointPackage) View(sim.Query, string, string, *move.Args) (string, bool, error) {
	return "", false, nil
}

func (e *EndpointPackage) commit(c *move.Call) error {
	header, e1 := c.Args.Bytes(0)
	hash, e2 := c.Args.Bytes(1)
	if e1 != nil || e2 != nil {
		return move.BadArgs(errors.Join(e1, e2))
	}
	if c.Sender() != e.DVN {
		return move.AbortAt(L1Endpoint, "uln_302", codeUnauthorized)
	}
	p, err := DecodeHeader(header)
	if err != nil || p.DstEID != EIDL1 || len(hash) != 32 || p.Receiver != [32]byte(L1OFT) {
		return move.AbortAt(L1Endpoint, "packet_v1_codec", codeNoPayload)
	}
	c.Env().Store(storeName).Set(inKey(p.SrcEID, p.Sender[:], p.Nonce), []byte(hex.EncodeToString(hash)))
	c.Emit(TagPacketVerified,
		move.Field{Name: "src_eid", Value: p.SrcEID},
		move.Field{Name: "sender", Value: hex0x(p.Sender[:])},
		move.Field{Name: "nonce", Value: strconv.FormatUint(p.Nonce, 10)},
		move.Field{Name: "receiver", Value: L1OFT.String()},
		move.Field{Name: "payload_hash", Value: hex0x(hash)})
	return nil
}
