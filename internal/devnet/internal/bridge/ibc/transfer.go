package ibc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/denom"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	channelv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/channel/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/internal/branch"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// callbackErrorPrefix renames the events of a receive callback that returned an error
// acknowledgement (ibc-go core's convertToErrorEvents).
const callbackErrorPrefix = "ibccallbackerror-"

const maxMemoLength = 32768

func attr(k, v string) sim.Attribute { return sim.Attribute{Key: k, Value: v, Index: true} }

func event(typ string, kv ...string) sim.Event {
	ev := sim.Event{Type: typ}
	for i := 0; i+1 < len(kv); i += 2 {
		ev.Attributes = append(ev.Attributes, attr(kv[i], kv[i+1]))
	}
	return ev
}

func moduleMessage(module string) sim.Event { return event("message", "module", module) }

// --- MsgTransfer ---

type transferReq struct {
	port, channel    string
	denom            string // local denom (native or ibc/HASH)
	amount           *big.Int
	sender           []byte
	senderStr        string
	receiver         string
	memo             string
	timeoutHeight    *clientv1.Height
	timeoutTimestamp uint64
}

func (m *Module) handleTransfer(env sim.Env, msg *transferv1.MsgTransfer) error {
	if !validIdentifier(msg.SourcePort, 2, 128) {
		return coded("host", 2, fmt.Sprintf("invalid source port ID %s: invalid identifier", msg.SourcePort))
	}
	if !validIdentifier(msg.SourceChannel, 8, 64) {
		return coded("host", 2, fmt.Sprintf("invalid source channel ID %s: invalid identifier", msg.SourceChannel))
	}
	if msg.Token == nil {
		return coded("sdk", 10, "token cannot be nil: invalid coins")
	}
	amt, ok := new(big.Int).SetString(msg.Token.Amount, 10)
	if !ok || amt.Sign() <= 0 {
		return coded("sdk", 10, fmt.Sprintf("%s%s: invalid coins", msg.Token.Amount, msg.Token.Denom))
	}
	sender, err := address.ParseAccount(env.AddressPrefix(), msg.Sender)
	if err != nil {
		return coded("sdk", 7, fmt.Sprintf("string could not be parsed as address: %v: invalid address", err))
	}
	if msg.Receiver == "" {
		return coded("sdk", 7, "missing recipient address: invalid address")
	}
	if len(msg.Receiver) > 2048 {
		return coded("sdk", 7, "recipient address must not exceed 2048 bytes: invalid address")
	}
	if len(msg.Memo) > maxMemoLength {
		return coded("transfer", 17, fmt.Sprintf("memo must not exceed %d bytes: invalid memo", maxMemoLength))
	}
	seq, err := m.transfer(env, transferReq{
		port: msg.SourcePort, channel: msg.SourceChannel, denom: msg.Token.Denom, amount: amt,
		sender: sender, senderStr: msg.Sender, receiver: msg.Receiver, memo: msg.Memo,
		timeoutHeight: msg.TimeoutHeight, timeoutTimestamp: msg.TimeoutTimestamp,
	})
	if err != nil {
		return err
	}
	return sim.Respond(env, &transferv1.MsgTransferResponse{Sequence: seq})
}

// transfer is the ICS-20 msg server's Transfer: escrow or burn, SendPacket, then the
// ibc_transfer event. PFM forwards go through it too.
func (m *Module) transfer(env sim.Env, r transferReq) (uint64, error) {
	kv := env.Store(StoreName)
	ch, ok := getChannel(kv, r.port, r.channel)
	if !ok {
		return 0, coded("channel", 3, fmt.Sprintf("port ID (%s) channel ID (%s): channel not found", r.port, r.channel))
	}
	fullPath := r.denom
	if denom.IsIBC(r.denom) {
		p, ok := LookupTrace(kv, r.denom)
		if !ok {
			return 0, coded("transfer", 6, fmt.Sprintf("%s: denomination trace not found", r.denom[4:]))
		}
		fullPath = p
	} else if len(r.denom) >= 4 && r.denom[:4] == "ibc/" {
		return 0, coded("transfer", 3, fmt.Sprintf("invalid denom trace hash %s: invalid denomination for cross-chain transfer", r.denom))
	}
	trace, err := denom.ParseTrace(fullPath)
	if err != nil {
		return 0, coded("transfer", 3, err.Error()+": invalid denomination for cross-chain transfer")
	}
	coins := []sim.Coin{{Denom: r.denom, Amount: new(big.Int).Set(r.amount)}}
	if !trace.HasPrefix(r.port, r.channel) {
		if err := env.Send(r.sender, EscrowAddress(r.port, r.channel), coins); err != nil {
			return 0, err
		}
	} else {
		mod := address.ModuleAccount(TransferModule)
		if err := env.Send(r.sender, mod, coins); err != nil {
			return 0, err
		}
		if err := env.Burn(mod, coins); err != nil {
			return 0, err
		}
	}
	memo := r.memo
	var callback json.RawMessage
	if m.cfg.HookVM == vmkind.Move || m.cfg.HookVM == vmkind.Wasm {
		// Initia L1 and miniwasm have the hook in the ICS4 send path, which takes the
		// async callback out of the committed packet and keeps it for the ack/timeout.
		memo, callback = StripAsyncCallback(m.cfg.HookVM, memo)
	}
	data := PacketData{Denom: fullPath, Amount: r.amount.String(), Sender: r.senderStr, Receiver: r.receiver, Memo: memo}
	seq, err := m.sendPacket(env, ch, r.timeoutHeight, r.timeoutTimestamp, data.Bytes())
	if err != nil {
		return 0, err
	}
	if callback != nil {
		env.Store(StoreName).Set(callbackKey(ch.PortID, ch.ChannelID, seq), callback)
	}
	env.Emit(event("ibc_transfer", "sender", r.senderStr, "receiver", r.receiver, "amount", r.amount.String(), "denom", r.denom, "memo", r.memo))
	env.Emit(moduleMessage(TransferModule))
	return seq, nil
}

// sendPacket is ICS-04 SendPacket.
func (m *Module) sendPacket(env sim.Env, ch Channel, th *clientv1.Height, ts uint64, data []byte) (uint64, error) {
	if heightIsZero(th) && ts == 0 {
		return 0, coded("channel", 10, "packet timeout height and packet timeout timestamp cannot both be 0: invalid packet")
	}
	if ts != 0 && uint64(env.Time().UnixNano()) >= ts {
		return 0, coded("channel", 21, fmt.Sprintf("receiving chain block timestamp >= packet timeout timestamp (%d >= %d): timeout elapsed", env.Time().UnixNano(), ts))
	}
	if th == nil {
		th = &clientv1.Height{}
	}
	kv := env.Store(StoreName)
	seq := getUint(kv, nextSeqKey(ch.PortID, ch.ChannelID))
	if seq == 0 {
		seq = 1
	}
	kv.Set(nextSeqKey(ch.PortID, ch.ChannelID), []byte(strconv.FormatUint(seq+1, 10)))
	kv.Set(commitmentKey(ch.PortID, ch.ChannelID, seq), Commitment(ts, th, data))
	p := &channelv1.Packet{Sequence: seq, SourcePort: ch.PortID, SourceChannel: ch.ChannelID,
		DestinationPort: ch.CounterpartyPortID, DestinationChannel: ch.CounterpartyChannelID,
		Data: data, TimeoutHeight: th, TimeoutTimestamp: ts}
	env.Emit(packetEvent("send_packet", p, ch.ConnectionID, nil))
	env.Emit(moduleMessage("ibc_channel"))
	return seq, nil
}

// packetEvent builds send_packet / recv_packet / write_acknowledgement.
func packetEvent(typ string, p *channelv1.Packet, connection string, ack []byte) sim.Event {
	kv := []string{
		"packet_data", string(p.Data),
		"packet_data_hex", hex.EncodeToString(p.Data),
		"packet_timeout_height", HeightString(p.TimeoutHeight),
		"packet_timeout_timestamp", strconv.FormatUint(p.TimeoutTimestamp, 10),
		"packet_sequence", strconv.FormatUint(p.Sequence, 10),
		"packet_src_port", p.SourcePort,
		"packet_src_channel", p.SourceChannel,
		"packet_dst_port", p.DestinationPort,
		"packet_dst_channel", p.DestinationChannel,
	}
	if ack != nil {
		kv = append(kv, "packet_ack", string(ack), "packet_ack_hex", hex.EncodeToString(ack))
	}
	kv = append(kv, "packet_channel_ordering", "ORDER_UNORDERED", "packet_connection", connection, "connection_id", connection)
	return event(typ, kv...)
}

func ackPacketEvent(p *channelv1.Packet, connection string) sim.Event {
	return event("acknowledge_packet",
		"packet_timeout_height", HeightString(p.TimeoutHeight),
		"packet_timeout_timestamp", strconv.FormatUint(p.TimeoutTimestamp, 10),
		"packet_sequence", strconv.FormatUint(p.Sequence, 10),
		"packet_src_port", p.SourcePort,
		"packet_src_channel", p.SourceChannel,
		"packet_dst_port", p.DestinationPort,
		"packet_dst_channel", p.DestinationChannel,
		"packet_channel_ordering", "ORDER_UNORDERED",
		"packet_connection", connection,
		"connection_id", connection)
}

func timeoutPacketEvent(p *channelv1.Packet, connection string) sim.Event {
	return event("timeout_packet",
		"packet_timeout_height", HeightString(p.TimeoutHeight),
		"packet_timeout_timestamp", strconv.FormatUint(p.TimeoutTimestamp, 10),
		"packet_sequence", strconv.FormatUint(p.Sequence, 10),
		"packet_src_port", p.SourcePort,
		"packet_src_channel", p.SourceChannel,
		"packet_dst_port", p.DestinationPort,
		"packet_dst_channel", p.DestinationChannel,
		"connection_id", connection,
		"packet_channel_ordering", "ORDER_UNORDERED")
}

// --- MsgRecvPacket ---

func (m *Module) handleRecv(env sim.Env, msg *channelv1.MsgRecvPacket) error {
	p := msg.Packet
	if p == nil {
		return coded("channel", 10, "packet cannot be nil: invalid packet")
	}
	if len(msg.ProofCommitment) == 0 {
		return coded("commitment", 2, "cannot submit an empty proof: invalid proof")
	}
	kv := env.Store(StoreName)
	ch, ok := getChannel(kv, p.DestinationPort, p.DestinationChannel)
	if !ok {
		return coded("channel", 3, fmt.Sprintf("port ID (%s) channel ID (%s): channel not found", p.DestinationPort, p.DestinationChannel))
	}
	if p.SourcePort != ch.CounterpartyPortID || p.SourceChannel != ch.CounterpartyChannelID {
		return coded("channel", 12, fmt.Sprintf("packet source port doesn't match the counterparty's port (%s ≠ %s) or channel (%s ≠ %s): invalid packet",
			p.SourcePort, ch.CounterpartyPortID, p.SourceChannel, ch.CounterpartyChannelID))
	}
	m.noteClientHeight(kv, ch.ClientID, msg.ProofHeight)
	if _, done := kv.Get(receiptKey(p.DestinationPort, p.DestinationChannel, p.Sequence)); done {
		return nil // redundant relay: NOOP, no events
	}
	self := &clientv1.Height{RevisionNumber: RevisionNumber(env.ChainID()), RevisionHeight: uint64(env.Height())}
	if !heightIsZero(p.TimeoutHeight) && heightGTE(self, p.TimeoutHeight) {
		return coded("channel", 13, fmt.Sprintf("block height >= packet timeout height (%s >= %s): packet timeout", HeightString(self), HeightString(p.TimeoutHeight)))
	}
	if p.TimeoutTimestamp != 0 && uint64(env.Time().UnixNano()) >= p.TimeoutTimestamp {
		return coded("channel", 13, fmt.Sprintf("block timestamp >= packet timeout timestamp (%d >= %d): packet timeout", env.Time().UnixNano(), p.TimeoutTimestamp))
	}
	kv.Set(receiptKey(p.DestinationPort, p.DestinationChannel, p.Sequence), []byte{1})
	env.Emit(packetEvent("recv_packet", p, ch.ConnectionID, nil))
	env.Emit(moduleMessage("ibc_channel"))

	br, err := branch.New(env)
	if err != nil {
		return err
	}
	var ack *Ack
	if isNFTPort(p.DestinationPort) {
		a := m.nftRecv(br, p)
		ack = &a
	} else {
		ack = m.onRecv(br, p)
	}
	if ack == nil || !ack.IsErr {
		if err := br.Commit(); err != nil {
			return err
		}
	} else {
		br.DiscardRenamed(callbackErrorPrefix)
	}
	if ack != nil {
		return m.writeAck(env, p, *ack)
	}
	return nil
}

func (m *Module) noteClientHeight(kv sim.KV, clientID string, h *clientv1.Height) {
	if h == nil || clientID == "" {
		return
	}
	if cur := getUint(kv, clientHeightKey(clientID)); h.RevisionHeight > cur {
		kv.Set(clientHeightKey(clientID), []byte(strconv.FormatUint(h.RevisionHeight, 10)))
	}
}

// writeAck is ICS-04 WriteAcknowledgement.
func (m *Module) writeAck(env sim.Env, p *channelv1.Packet, ack Ack) error {
	kv := env.Store(StoreName)
	ch, ok := getChannel(kv, p.DestinationPort, p.DestinationChannel)
	if !ok {
		return coded("channel", 3, fmt.Sprintf("port ID (%s) channel ID (%s): channel not found", p.DestinationPort, p.DestinationChannel))
	}
	key := ackKey(p.DestinationPort, p.DestinationChannel, p.Sequence)
	if _, exists := kv.Get(key); exists {
		return coded("channel", 15, "acknowledgement for packet already exists")
	}
	bz := ack.Bytes()
	sum := sha256.Sum256(bz)
	kv.Set(key, sum[:])
	env.Emit(packetEvent("write_acknowledgement", p, ch.ConnectionID, bz))
	env.Emit(moduleMessage("ibc_channel"))
	return nil
}

// onRecv is the receive side of the transfer stack: ibc-hooks → PFM → ICS-20.
// A nil ack means the acknowledgement is written later (forwarded packet).
func (m *Module) onRecv(env sim.Env, p *channelv1.Packet) *Ack {
	data, err := ParsePacketData(p.Data)
	if err != nil {
		ack := ErrorAckFromErr(err)
		env.Emit(fungibleRecvEvent(PacketData{}, false, err))
		return &ack
	}
	vm := m.cfg.HookVM
	hm, routed, err := ParseHook(vm, data.Memo)
	if !routed {
		return m.pfmRecv(env, p, data)
	}
	if err == nil {
		err = hm.ValidateReceiver(data.Receiver, func(fn string) string {
			sum := sha256.Sum256([]byte(fn))
			return bech32(env.AddressPrefix(), sum[:])
		})
	}
	if err != nil {
		a := ErrorAck(fmt.Sprintf("ibc %s hook error: %s", vm, err))
		return &a
	}
	inter := HookIntermediary(vm, p.DestinationChannel, data.Sender)
	inner := data
	inner.Receiver = bech32(env.AddressPrefix(), inter)
	ack := m.pfmRecv(env, p, inner)
	if ack == nil || ack.IsErr {
		return ack
	}
	trace, _, err := denom.ReceiveDenom(data.Denom, p.SourcePort, p.SourceChannel, p.DestinationPort, p.DestinationChannel)
	if err != nil {
		a := ErrorAck(fmt.Sprintf("ibc %s hook error: %s", vm, err))
		return &a
	}
	funds := sim.Coin{Denom: trace.IBCDenom(), Amount: data.AmountInt()}
	if err := m.execHook(env, hm, inter, funds); err != nil {
		a := ErrorAck(fmt.Sprintf("ibc %s hook error: %s", vm, err))
		return &a
	}
	return ack
}

func (m *Module) execHook(env sim.Env, hm *HookMemo, sender []byte, funds sim.Coin) error {
	if m.cfg.Hooks != nil {
		return m.cfg.Hooks.ExecIBCHook(env, hm.VM, sender, hm.Message, funds)
	}
	if hm.VM == vmkind.Move {
		var msg struct {
			ModuleAddress string `json:"module_address"`
			ModuleName    string `json:"module_name"`
			FunctionName  string `json:"function_name"`
		}
		if err := json.Unmarshal(hm.MoveMessage(), &msg); err != nil {
			return fmt.Errorf("failed to decode move message: %w", err)
		}
		env.Emit(event("execute", "sender", bech32(env.AddressPrefix(), sender), "module_addr", msg.ModuleAddress,
			"module_name", msg.ModuleName, "function_name", msg.FunctionName))
	}
	return nil
}

// pfmRecv is the packet-forward middleware's OnRecvPacket.
func (m *Module) pfmRecv(env sim.Env, p *channelv1.Packet, data PacketData) *Ack {
	fm, isForward, err := ParseForward(data.Memo)
	if !isForward {
		a := m.transferRecv(env, p, data)
		return &a
	}
	if err != nil {
		a := ErrorAck("packet-forward-middleware error: " + err.Error())
		return &a
	}
	override := ForwardReceiver(p.DestinationChannel, data.Sender)
	overrideStr := bech32(env.AddressPrefix(), override)
	inner := data
	inner.Receiver = overrideStr
	inner.Memo = ""
	ack := m.transferRecv(env, p, inner)
	if ack.IsErr {
		return &ack
	}
	trace, _, err := denom.ReceiveDenom(data.Denom, p.SourcePort, p.SourceChannel, p.DestinationPort, p.DestinationChannel)
	if err != nil {
		a := ErrorAck("packet-forward-middleware error: " + err.Error())
		return &a
	}
	timeout := fm.Timeout
	if timeout <= 0 {
		timeout = m.cfg.ForwardTimeout
	}
	retries := 0
	if fm.Retries != nil {
		retries = int(*fm.Retries)
	}
	f := inFlight{
		OriginalSenderAddress: overrideStr,
		RefundChannelID:       p.DestinationChannel,
		RefundPortID:          p.DestinationPort,
		PacketSrcChannelID:    p.SourceChannel,
		PacketSrcPortID:       p.SourcePort,
		PacketTimeoutStamp:    p.TimeoutTimestamp,
		PacketData:            p.Data,
		RefundSequence:        p.Sequence,
		RetriesRemaining:      retries,
		Timeout:               int64(timeout),
	}
	if p.TimeoutHeight != nil {
		f.PacketTimeoutRevision, f.PacketTimeoutHeight = p.TimeoutHeight.RevisionNumber, p.TimeoutHeight.RevisionHeight
	}
	if err := m.forward(env, f, fm.Port, fm.Channel, fm.Receiver, fm.Next, trace.IBCDenom(), data.AmountInt()); err != nil {
		a := ErrorAck("packet-forward-middleware error: " + err.Error())
		return &a
	}
	return nil
}

// forward sends the next hop from the intermediate account and records it in flight.
func (m *Module) forward(env sim.Env, f inFlight, port, channel, receiver, next, localDenom string, amount *big.Int) error {
	sender, err := address.ParseAccount(env.AddressPrefix(), f.OriginalSenderAddress)
	if err != nil {
		return err
	}
	seq, err := m.transfer(env, transferReq{
		port: port, channel: channel, denom: localDenom, amount: amount,
		sender: sender, senderStr: f.OriginalSenderAddress, receiver: receiver, memo: next,
		timeoutHeight: &clientv1.Height{}, timeoutTimestamp: uint64(env.Time().UnixNano()) + uint64(f.Timeout),
	})
	if err != nil {
		return err
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	env.Store(StoreName).Set(inFlightKey(channel, port, seq), b)
	return nil
}

// transferRecv is the ICS-20 application's OnRecvPacket (events included).
func (m *Module) transferRecv(env sim.Env, p *channelv1.Packet, data PacketData) Ack {
	ack := SuccessAck()
	err := m.receiveTokens(env, p, data)
	if err != nil {
		ack = ErrorAckFromErr(err)
	}
	env.Emit(fungibleRecvEvent(data, !ack.IsErr, err))
	return ack
}

func fungibleRecvEvent(data PacketData, success bool, err error) sim.Event {
	ev := event("fungible_token_packet", "module", TransferModule, "sender", data.Sender, "receiver", data.Receiver,
		"denom", data.Denom, "amount", data.Amount, "memo", data.Memo, "success", strconv.FormatBool(success))
	if err != nil {
		ev.Attributes = append(ev.Attributes, attr("error", err.Error()))
	}
	return ev
}

// receiveTokens is the ICS-20 keeper's OnRecvPacket: unescrow a returning token or mint
// the voucher of a new trace.
func (m *Module) receiveTokens(env sim.Env, p *channelv1.Packet, data PacketData) error {
	receiver, err := address.ParseAccount(env.AddressPrefix(), data.Receiver)
	if err != nil {
		return coded("sdk", 7, fmt.Sprintf("failed to decode receiver address %s: %v: invalid address", data.Receiver, err))
	}
	trace, unwinding, err := denom.ReceiveDenom(data.Denom, p.SourcePort, p.SourceChannel, p.DestinationPort, p.DestinationChannel)
	if err != nil {
		return coded("transfer", 3, err.Error()+": invalid denomination for cross-chain transfer")
	}
	local := trace.IBCDenom()
	coins := []sim.Coin{{Denom: local, Amount: data.AmountInt()}}
	if unwinding {
		if err := env.Send(EscrowAddress(p.DestinationPort, p.DestinationChannel), receiver, coins); err != nil {
			return fmt.Errorf("unable to unescrow tokens: %w", err)
		}
		return nil
	}
	kv := env.Store(StoreName)
	hash := denom.IBCHash(trace.FullPath())
	if _, ok := kv.Get(traceKey(hash)); !ok {
		kv.Set(traceKey(hash), []byte(trace.FullPath()))
	}
	env.Emit(event("denomination_trace", "trace_hash", hash, "denom", local))
	mod := address.ModuleAccount(TransferModule)
	if err := env.Mint(mod, coins); err != nil {
		return fmt.Errorf("failed to mint IBC tokens: %w", err)
	}
	if err := env.Send(mod, receiver, coins); err != nil {
		return fmt.Errorf("failed to send coins to receiver %s: %w", data.Receiver, err)
	}
	return nil
}

// --- MsgAcknowledgement ---

// checkSent finds the channel of a packet this chain sent and its commitment. found is
// false for a packet whose commitment is gone (already acknowledged or timed out).
func (m *Module) checkSent(env sim.Env, p *channelv1.Packet) (Channel, bool, error) {
	if p == nil {
		return Channel{}, false, coded("channel", 10, "packet cannot be nil: invalid packet")
	}
	kv := env.Store(StoreName)
	ch, ok := getChannel(kv, p.SourcePort, p.SourceChannel)
	if !ok {
		return Channel{}, false, coded("channel", 3, fmt.Sprintf("port ID (%s) channel ID (%s): channel not found", p.SourcePort, p.SourceChannel))
	}
	if p.DestinationPort != ch.CounterpartyPortID || p.DestinationChannel != ch.CounterpartyChannelID {
		return Channel{}, false, coded("channel", 12, "packet destination port/channel doesn't match the counterparty's: invalid packet")
	}
	c, ok := kv.Get(commitmentKey(p.SourcePort, p.SourceChannel, p.Sequence))
	if !ok {
		return ch, false, nil
	}
	if !bytes.Equal(c, Commitment(p.TimeoutTimestamp, p.TimeoutHeight, p.Data)) {
		return Channel{}, false, coded("channel", 12, fmt.Sprintf("commitment bytes are not equal: got (%X), expected (%X): invalid packet",
			Commitment(p.TimeoutTimestamp, p.TimeoutHeight, p.Data), c))
	}
	return ch, true, nil
}

func (m *Module) handleAck(env sim.Env, msg *channelv1.MsgAcknowledgement) error {
	ch, found, err := m.checkSent(env, msg.Packet)
	if err != nil {
		return err
	}
	if !found {
		return nil // redundant relay: NOOP
	}
	ack, err := ParseAck(msg.Acknowledgement)
	if err != nil {
		return coded("transfer", 4, err.Error())
	}
	p := msg.Packet
	kv := env.Store(StoreName)
	m.noteClientHeight(kv, ch.ClientID, msg.ProofHeight)
	kv.Delete(commitmentKey(p.SourcePort, p.SourceChannel, p.Sequence))
	env.Emit(ackPacketEvent(p, ch.ConnectionID))
	env.Emit(moduleMessage("ibc_channel"))
	if isNFTPort(p.SourcePort) {
		return m.nftAck(env, p, ack)
	}
	return m.onAck(env, p, ack)
}

func (m *Module) getInFlight(kv sim.KVReader, p *channelv1.Packet) (inFlight, bool) {
	b, ok := kv.Get(inFlightKey(p.SourceChannel, p.SourcePort, p.Sequence))
	if !ok {
		return inFlight{}, false
	}
	var f inFlight
	if err := json.Unmarshal(b, &f); err != nil {
		return inFlight{}, false
	}
	return f, true
}

func (m *Module) onAck(env sim.Env, p *channelv1.Packet, ack Ack) error {
	data, err := ParsePacketData(p.Data)
	if err != nil {
		return coded("transfer", 4, err.Error())
	}
	kv := env.Store(StoreName)
	if f, ok := m.getInFlight(kv, p); ok {
		kv.Delete(inFlightKey(p.SourceChannel, p.SourcePort, p.Sequence))
		return m.ackForwarded(env, p, data, f, ack)
	}
	if ack.IsErr {
		if err := m.refund(env, p, data); err != nil {
			return err
		}
	}
	env.Emit(event("fungible_token_packet", "module", TransferModule, "sender", data.Sender, "receiver", data.Receiver,
		"denom", data.Denom, "amount", data.Amount, "memo", data.Memo, "acknowledgement", ack.Text()))
	if ack.IsErr {
		env.Emit(event("fungible_token_packet", "error", ack.Error))
	} else {
		env.Emit(event("fungible_token_packet", "success", string(ack.Result)))
	}
	m.runCallback(env, p, data, Callback{Channel: p.SourceChannel, Sequence: p.Sequence, Ack: ack.Bytes(), Success: !ack.IsErr})
	return nil
}

// runCallback runs the sender's async callback of an acknowledged or timed-out packet
// (ibc_ack / ibc_timeout) in a branch; a failure leaves only a hook_failed event.
func (m *Module) runCallback(env sim.Env, p *channelv1.Packet, data PacketData, cb Callback) {
	kv := env.Store(StoreName)
	key := callbackKey(p.SourcePort, p.SourceChannel, p.Sequence)
	raw, stored := kv.Get(key)
	if stored {
		kv.Delete(key)
	} else if m.cfg.HookVM == vmkind.EVM {
		// minievm has no send hook: the callback is read from the packet's own memo
		var top map[string]struct {
			AsyncCallback json.RawMessage `json:"async_callback"`
		}
		if json.Unmarshal([]byte(data.Memo), &top) == nil {
			raw = top[vmkind.EVM.String()].AsyncCallback
		}
	}
	if len(raw) == 0 {
		return
	}
	ce, ok := m.cfg.Hooks.(CallbackExecutor)
	if !ok {
		return
	}
	sender, err := address.ParseAccount(env.AddressPrefix(), data.Sender)
	if err != nil {
		env.Emit(event("hook_failed", "reason", "failed to get async callback", "error", err.Error()))
		return
	}
	br, err := branch.New(env)
	if err != nil {
		env.Emit(event("hook_failed", "reason", "failed to execute callback", "error", err.Error()))
		return
	}
	if err := ce.ExecIBCCallback(br, m.cfg.HookVM, sender, raw, cb); err != nil {
		env.Emit(event("hook_failed", "reason", "failed to execute callback", "error", err.Error()))
		return
	}
	if err := br.Commit(); err != nil {
		env.Emit(event("hook_failed", "reason", "failed to execute callback", "error", err.Error()))
	}
}

// refund is ICS-20 refundPacketToken: unescrow to the sender if this chain is the
// token's source for that channel, else mint the voucher back.
func (m *Module) refund(env sim.Env, p *channelv1.Packet, data PacketData) error {
	sender, err := address.ParseAccount(env.AddressPrefix(), data.Sender)
	if err != nil {
		return coded("sdk", 7, fmt.Sprintf("failed to decode sender address %s: %v: invalid address", data.Sender, err))
	}
	trace, err := denom.ParseTrace(data.Denom)
	if err != nil {
		return coded("transfer", 3, err.Error())
	}
	coins := []sim.Coin{{Denom: trace.IBCDenom(), Amount: data.AmountInt()}}
	if !trace.HasPrefix(p.SourcePort, p.SourceChannel) {
		return env.Send(EscrowAddress(p.SourcePort, p.SourceChannel), sender, coins)
	}
	mod := address.ModuleAccount(TransferModule)
	if err := env.Mint(mod, coins); err != nil {
		return err
	}
	return env.Send(mod, sender, coins)
}

// ackForwarded is PFM's WriteAcknowledgementForForwardedPacket: on failure it moves the
// forwarded funds back where the origin's refund expects them, then writes the hop-1
// acknowledgement with the downstream ack.
func (m *Module) ackForwarded(env sim.Env, p *channelv1.Packet, data PacketData, f inFlight, ack Ack) error {
	if !f.Nonrefundable && ack.IsErr {
		trace, err := denom.ParseTrace(data.Denom)
		if err != nil {
			return coded("transfer", 3, err.Error())
		}
		coins := []sim.Coin{{Denom: trace.IBCDenom(), Amount: data.AmountInt()}}
		escrow := EscrowAddress(p.SourcePort, p.SourceChannel)
		refundEscrow := EscrowAddress(f.RefundPortID, f.RefundChannelID)
		mod := address.ModuleAccount(TransferModule)
		if !trace.HasPrefix(p.SourcePort, p.SourceChannel) {
			if !trace.HasPrefix(f.RefundPortID, f.RefundChannelID) {
				if err := env.Send(escrow, refundEscrow, coins); err != nil {
					return err
				}
			} else {
				if err := env.Send(escrow, mod, coins); err != nil {
					return err
				}
				if err := env.Burn(mod, coins); err != nil {
					return err
				}
			}
		} else {
			if err := env.Mint(mod, coins); err != nil {
				return err
			}
			if err := env.Send(mod, refundEscrow, coins); err != nil {
				return err
			}
		}
	}
	return m.writeAck(env, f.refundPacket(), ack)
}

// --- MsgTimeout ---

func (m *Module) handleTimeout(env sim.Env, msg *channelv1.MsgTimeout) error {
	ch, found, err := m.checkSent(env, msg.Packet)
	if err != nil {
		return err
	}
	if !found {
		return nil
	}
	p := msg.Packet
	// The devnet trusts the relayer's proof of non-receipt but still checks that the
	// timeout had passed on the counterparty at the proof height (heights) or by now
	// (timestamps: all devnet chains share one clock).
	elapsed := false
	if !heightIsZero(p.TimeoutHeight) && msg.ProofHeight != nil && heightGTE(msg.ProofHeight, p.TimeoutHeight) {
		elapsed = true
	}
	if p.TimeoutTimestamp != 0 && uint64(env.Time().UnixNano()) >= p.TimeoutTimestamp {
		elapsed = true
	}
	if !elapsed {
		return coded("channel", 14, "packet timeout has not been reached for height or timestamp: packet timeout not reached")
	}
	kv := env.Store(StoreName)
	m.noteClientHeight(kv, ch.ClientID, msg.ProofHeight)
	kv.Delete(commitmentKey(p.SourcePort, p.SourceChannel, p.Sequence))
	env.Emit(timeoutPacketEvent(p, ch.ConnectionID))
	env.Emit(moduleMessage("ibc_channel"))
	if isNFTPort(p.SourcePort) {
		return m.nftTimeout(env, p)
	}
	return m.onTimeout(env, p)
}

func (m *Module) onTimeout(env sim.Env, p *channelv1.Packet) error {
	data, err := ParsePacketData(p.Data)
	if err != nil {
		return coded("transfer", 4, err.Error())
	}
	kv := env.Store(StoreName)
	if f, ok := m.getInFlight(kv, p); ok {
		kv.Delete(inFlightKey(p.SourceChannel, p.SourcePort, p.Sequence))
		if f.RetriesRemaining <= 0 {
			ack := ErrorAck(fmt.Sprintf("packet-forward-middleware error: giving up on packet on channel (%s) port (%s) after max retries",
				f.RefundChannelID, f.RefundPortID))
			return m.ackForwarded(env, p, data, f, ack)
		}
		// Retry: refund this hop on this chain, then send it again with one retry less.
		if err := m.transferTimeout(env, p, data); err != nil {
			return err
		}
		f.RetriesRemaining--
		trace, err := denom.ParseTrace(data.Denom)
		if err != nil {
			return coded("transfer", 3, err.Error())
		}
		return m.forward(env, f, p.SourcePort, p.SourceChannel, data.Receiver, data.Memo, trace.IBCDenom(), data.AmountInt())
	}
	return m.transferTimeout(env, p, data)
}

func (m *Module) transferTimeout(env sim.Env, p *channelv1.Packet, data PacketData) error {
	if err := m.refund(env, p, data); err != nil {
		return err
	}
	env.Emit(event("timeout", "module", TransferModule, "refund_receiver", data.Sender, "refund_denom", data.Denom,
		"refund_amount", data.Amount, "memo", data.Memo))
	m.runCallback(env, p, data, Callback{Channel: p.SourceChannel, Sequence: p.Sequence, Timeout: true})
	return nil
}

// --- MsgUpdateClient ---

func (m *Module) handleUpdateClient(env sim.Env, msg *clientv1.MsgUpdateClient) error {
	kv := env.Store(StoreName)
	known := false
	for _, ch := range m.cfg.Channels {
		if ch.ClientID == msg.ClientId {
			known = true
		}
	}
	if !known {
		return coded("client", 5, fmt.Sprintf("cannot update client with ID %s: light client not found", msg.ClientId))
	}
	h := getUint(kv, clientHeightKey(msg.ClientId))
	var header []byte
	if msg.ClientMessage != nil {
		header = msg.ClientMessage.Value
	}
	cp := ""
	for _, ch := range m.cfg.Channels {
		if ch.ClientID == msg.ClientId {
			cp = ch.CounterpartyChainID
		}
	}
	height := fmt.Sprintf("%d-%d", RevisionNumber(cp), h)
	env.Emit(event("update_client", "client_id", msg.ClientId, "client_type", "07-tendermint",
		"consensus_height", height, "consensus_heights", height, "header", hex.EncodeToString(header)))
	env.Emit(moduleMessage("ibc_client"))
	return nil
}
