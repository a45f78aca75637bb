package ibc

// ICS-721 (non-fungible token transfer) on the same ICS-04 core as ICS-20: the L1 holds NFT
// classes (an x/nft-like class store written at genesis) and sends tokens over `nft-transfer`
// channels; a rollup receives them and mints vouchers in its VM's own NFT representation
// through an NFTReceiver, so indexers see the same collection and mint events as for native
// NFTs. A chain with an NFTEscrow (the Move chains) also sends its VM's own collections
// (class id move/<collection>), escrowing the NFT objects, and the receiving chain mints
// vouchers of them the same way. Only source zones send: vouchers never go back, so the
// sink-zone paths (burn on send, unescrow on receive) are refused with an error.
//
// Packet data field names follow the ICS-721 specification's NonFungibleTokenPacketData
// (classId, classUri, classData, tokenIds, tokenUris, tokenData, sender, receiver, memo);
// the acknowledgement is the ICS-20-shaped {"result":"AQ=="} / {"error":…} the spec defines.

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	nfttransferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/nft_transfer/v1"
	channelv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/channel/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// NFTPort is the port ICS-721 applications bind, and NFTModule the module's name (its module
// account creates the voucher collections on the rollups).
const (
	NFTPort    = "nft-transfer"
	NFTModule  = "nft-transfer"
	NFTVersion = "ics721-1"
)

// URLNFTTransfer is the type URL of the ICS-721 MsgTransfer.
const URLNFTTransfer = "/ibc.applications.nft_transfer.v1.MsgTransfer"

// NFTClass is one class of the L1's class store, with its tokens at genesis.
type NFTClass struct {
	ID     string     `json:"id"`
	Name   string     `json:"name"`
	URI    string     `json:"uri"`
	Tokens []NFTToken `json:"-"`
}

// NFTToken is one token of a class; Owner is the holder's 20-byte account (the channel's
// escrow account while the token is away).
type NFTToken struct {
	ID    string `json:"id"`
	URI   string `json:"uri"`
	Owner []byte `json:"owner"`
}

// NFTReceiver mints received tokens in a rollup VM's NFT representation. class is the voucher
// class as the VM names its collection (see VoucherClass), tokens carry their ids and URIs,
// receiver is the 20-byte account. The first receive of a class creates its collection, owned
// by the nft-transfer module account.
type NFTReceiver interface {
	ReceiveNFTs(env sim.Env, class, classURI string, tokens []NFTToken, receiver []byte) error
}

// NFTConfig turns ICS-721 on for a chain.
type NFTConfig struct {
	Channels []Channel
	// Classes are the chain's own classes at genesis (the L1).
	Classes []NFTClass
	// Receiver mints received vouchers (rollups); nil refuses every receive with an error ack.
	Receiver NFTReceiver
	// PathNames names voucher classes by their prefixed path (port/channel/classId), as
	// miniwasm's CW721 collections are; otherwise ibc/ + upper-case hex SHA-256 of the path
	// (minimove, minievm).
	PathNames bool
	// Rate is the chance per block of one ICS-721 transfer of a class token an account holds.
	Rate float64
	// Escrow sends the chain VM's own NFTs (the L1's Move collections); nil: only the class
	// store's classes can be sent.
	Escrow NFTEscrow
}

// NFTEscrow moves a VM's own NFTs into a channel's escrow account on send and back on a
// refund, as initia's nft-transfer does with Move collections (class id
// move/<collection address>). Handles says whether a class id names such a collection.
type NFTEscrow interface {
	Handles(classID string) bool
	// EscrowNFTs checks that sender owns every token, moves them to escrow and returns the
	// class (name, URI) and the tokens' URIs for the packet.
	EscrowNFTs(env sim.Env, classID string, tokenIDs []string, sender, escrow []byte) (NFTClass, []string, error)
	RefundNFTs(env sim.Env, classID string, tokenIDs []string, escrow, sender []byte) error
}

// vmClass reports whether a class id is the VM's own (sent through the Escrow).
func (m *Module) vmClass(classID string) bool {
	return m.nftOn() && m.nftCfg().Escrow != nil && m.nftCfg().Escrow.Handles(classID)
}

// NFTPacketData is the ICS-721 NonFungibleTokenPacketData (JSON on the wire).
type NFTPacketData struct {
	ClassID   string   `json:"classId"`
	ClassURI  string   `json:"classUri,omitempty"`
	ClassData string   `json:"classData,omitempty"`
	TokenIDs  []string `json:"tokenIds"`
	TokenURIs []string `json:"tokenUris,omitempty"`
	TokenData []string `json:"tokenData,omitempty"`
	Sender    string   `json:"sender"`
	Receiver  string   `json:"receiver"`
	Memo      string   `json:"memo,omitempty"`
}

// Bytes is the packet data on the wire (compact JSON, the spec's field names).
func (d NFTPacketData) Bytes() []byte {
	b, _ := json.Marshal(d) // strings and string lists always encode
	return b
}

// ParseNFTPacketData decodes and validates ICS-721 packet data.
func ParseNFTPacketData(b []byte) (NFTPacketData, error) {
	var d NFTPacketData
	if err := json.Unmarshal(b, &d); err != nil {
		return NFTPacketData{}, coded(NFTModule, 2, fmt.Sprintf("cannot unmarshal ICS-721 packet data: %v", err))
	}
	switch {
	case strings.TrimSpace(d.ClassID) == "":
		return d, coded(NFTModule, 3, "classId cannot be blank: invalid class id")
	case len(d.TokenIDs) == 0:
		return d, coded(NFTModule, 4, "tokenIds cannot be empty: invalid token id")
	case len(d.TokenURIs) != 0 && len(d.TokenURIs) != len(d.TokenIDs):
		return d, coded(NFTModule, 5, "tokenUris and tokenIds lengths differ: invalid packet")
	case strings.TrimSpace(d.Sender) == "":
		return d, coded("ibc", 7, "sender address cannot be blank: invalid address")
	case strings.TrimSpace(d.Receiver) == "":
		return d, coded("ibc", 7, "receiver address cannot be blank: invalid address")
	}
	return d, nil
}

// ClassDataName is the JSON {"name": …} a class carries in classData, base64-encoded.
func ClassDataName(name string) string {
	b, _ := json.Marshal(struct {
		Name string `json:"name"`
	}{name})
	return base64.StdEncoding.EncodeToString(b)
}

// VoucherClass names a received class on the receiving chain: the prefixed path
// `dstPort/dstChannel/classId`, or ibc/ + the upper-case hex SHA-256 of it.
func VoucherClass(dstPort, dstChannel, classID string, pathNames bool) string {
	prefixed := dstPort + "/" + dstChannel + "/" + classID
	if pathNames {
		return prefixed
	}
	sum := sha256.Sum256([]byte(prefixed))
	return "ibc/" + strings.ToUpper(hex.EncodeToString(sum[:]))
}

// NFTEscrowAddress is the ICS-721 escrow account of a channel end, derived like ICS-20's
// with the ICS-721 version string.
func NFTEscrowAddress(port, channel string) []byte {
	pre := append([]byte(NFTVersion), 0)
	pre = append(pre, port+"/"+channel...)
	sum := sha256.Sum256(pre)
	return sum[:20]
}

// --- class store (state keys "nftclass/<id>", "nfttoken/<class>/<id>", "nfttrace/<voucher>") ---

func nftClassKey(id string) string        { return "nftclass/" + id }
func nftTokenKey(class, id string) string { return "nfttoken/" + class + "/" + id }
func nftTraceKey(voucher string) string   { return "nfttrace/" + voucher }
func nftTokenPrefix(class string) string  { return "nfttoken/" + class + "/" }
func isNFTPort(port string) bool          { return port == NFTPort }
func (m *Module) nftOn() bool             { return m.cfg.NFT != nil }
func (m *Module) nftCfg() NFTConfig       { return *m.cfg.NFT }
func joinIDs(ids []string) string         { return strings.Join(ids, ",") }

// NFTClasses lists the class store's classes (the L1's), in id order.
func NFTClasses(kv sim.KVReader) []NFTClass {
	var out []NFTClass
	kv.Iterate("nftclass/", func(_ string, v []byte) bool {
		var c NFTClass
		if json.Unmarshal(v, &c) == nil {
			out = append(out, c)
		}
		return true
	})
	return out
}

// NFTTokens lists the tokens of a class in the class store, in id order.
func NFTTokens(kv sim.KVReader, class string) []NFTToken {
	var out []NFTToken
	kv.Iterate(nftTokenPrefix(class), func(_ string, v []byte) bool {
		var t NFTToken
		if json.Unmarshal(v, &t) == nil {
			out = append(out, t)
		}
		return true
	})
	return out
}

// NFTTrace returns the prefixed path of a voucher class received by this chain.
func NFTTrace(kv sim.KVReader, voucher string) (string, bool) {
	b, ok := kv.Get(nftTraceKey(voucher))
	return string(b), ok
}

func getNFTClass(kv sim.KVReader, id string) (NFTClass, bool) {
	b, ok := kv.Get(nftClassKey(id))
	if !ok {
		return NFTClass{}, false
	}
	var c NFTClass
	return c, json.Unmarshal(b, &c) == nil
}

func getNFTToken(kv sim.KVReader, class, id string) (NFTToken, bool) {
	b, ok := kv.Get(nftTokenKey(class, id))
	if !ok {
		return NFTToken{}, false
	}
	var t NFTToken
	return t, json.Unmarshal(b, &t) == nil
}

func putJSON(kv sim.KV, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	kv.Set(key, b)
	return nil
}

// nftGenesis writes the ICS-721 channels and the genesis classes.
func (m *Module) nftGenesis(env sim.Env) error {
	if !m.nftOn() {
		return nil
	}
	kv := env.Store(StoreName)
	for _, ch := range m.nftCfg().Channels {
		if ch.PortID != NFTPort || ch.ChannelID == "" || ch.CounterpartyChannelID == "" {
			return fmt.Errorf("ibc genesis: incomplete nft-transfer channel %+v", ch)
		}
		if ch.CounterpartyPortID == "" {
			ch.CounterpartyPortID = NFTPort
		}
		if err := putJSON(kv, channelKey(ch.PortID, ch.ChannelID), ch); err != nil {
			return fmt.Errorf("ibc genesis: %w", err)
		}
		kv.Set(nextSeqKey(ch.PortID, ch.ChannelID), []byte("1"))
	}
	for _, c := range m.nftCfg().Classes {
		if c.ID == "" || strings.Contains(c.ID, "/") {
			return fmt.Errorf("ibc genesis: class id %q (a native class id has no /)", c.ID)
		}
		if err := putJSON(kv, nftClassKey(c.ID), c); err != nil {
			return err
		}
		for _, t := range c.Tokens {
			if err := putJSON(kv, nftTokenKey(c.ID, t.ID), t); err != nil {
				return err
			}
		}
	}
	return nil
}

// --- MsgTransfer (send) ---

func (m *Module) handleNFTTransfer(env sim.Env, msg *nfttransferv1.MsgTransfer) error {
	if !m.nftOn() {
		return coded("sdk", 6, "unrecognized message type: "+URLNFTTransfer)
	}
	if msg.SourcePort != NFTPort {
		return coded("host", 2, fmt.Sprintf("invalid source port ID %s: invalid identifier", msg.SourcePort))
	}
	if len(msg.TokenIds) == 0 {
		return coded(NFTModule, 4, "tokenIds cannot be empty: invalid token id")
	}
	sender, err := address.ParseAccount(env.AddressPrefix(), msg.Sender)
	if err != nil {
		return coded("sdk", 7, fmt.Sprintf("string could not be parsed as address: %v: invalid address", err))
	}
	if msg.Receiver == "" {
		return coded("sdk", 7, "missing recipient address: invalid address")
	}
	kv := env.Store(StoreName)
	ch, ok := getChannel(kv, msg.SourcePort, msg.SourceChannel)
	if !ok {
		return coded("channel", 3, fmt.Sprintf("port ID (%s) channel ID (%s): channel not found", msg.SourcePort, msg.SourceChannel))
	}
	if m.vmClass(msg.ClassId) {
		return m.sendVMNFTs(env, ch, msg, sender)
	}
	if strings.Contains(msg.ClassId, "/") {
		// Sending a voucher back (sink zone) would burn it in the VM; the devnet's rollups
		// never do, so the class store holds native classes only.
		return coded(NFTModule, 3, fmt.Sprintf("class %s: only native classes can be sent from this chain: invalid class id", msg.ClassId))
	}
	class, ok := getNFTClass(kv, msg.ClassId)
	if !ok {
		return coded(NFTModule, 6, fmt.Sprintf("class %s not found", msg.ClassId))
	}
	escrow := NFTEscrowAddress(ch.PortID, ch.ChannelID)
	uris := make([]string, len(msg.TokenIds))
	for i, id := range msg.TokenIds {
		t, ok := getNFTToken(kv, class.ID, id)
		if !ok {
			return coded(NFTModule, 7, fmt.Sprintf("nft %s/%s not found", class.ID, id))
		}
		if string(t.Owner) != string(sender) {
			return coded(NFTModule, 8, fmt.Sprintf("%s is not the owner of nft %s/%s: unauthorized", msg.Sender, class.ID, id))
		}
		t.Owner = escrow
		if err := putJSON(kv, nftTokenKey(class.ID, id), t); err != nil {
			return err
		}
		uris[i] = t.URI
	}
	return m.sendNFTPacket(env, ch, msg, class, uris)
}

// sendVMNFTs escrows the VM's own NFTs (a Move collection of the L1) and sends them.
func (m *Module) sendVMNFTs(env sim.Env, ch Channel, msg *nfttransferv1.MsgTransfer, sender []byte) error {
	class, uris, err := m.nftCfg().Escrow.EscrowNFTs(env, msg.ClassId, msg.TokenIds, sender, NFTEscrowAddress(ch.PortID, ch.ChannelID))
	if err != nil {
		return err
	}
	class.ID = msg.ClassId
	return m.sendNFTPacket(env, ch, msg, class, uris)
}

func (m *Module) sendNFTPacket(env sim.Env, ch Channel, msg *nfttransferv1.MsgTransfer, class NFTClass, uris []string) error {
	data := NFTPacketData{ClassID: class.ID, ClassURI: class.URI, ClassData: ClassDataName(class.Name), TokenIDs: msg.TokenIds,
		TokenURIs: uris, Sender: msg.Sender, Receiver: msg.Receiver, Memo: msg.Memo}
	seq, err := m.sendPacket(env, ch, msg.TimeoutHeight, msg.TimeoutTimestamp, data.Bytes())
	if err != nil {
		return err
	}
	env.Emit(event("ibc_nft_transfer", "sender", msg.Sender, "receiver", msg.Receiver, "class_id", class.ID,
		"token_ids", joinIDs(msg.TokenIds), "memo", msg.Memo))
	env.Emit(moduleMessage(NFTModule))
	return sim.Respond(env, &nfttransferv1.MsgTransferResponse{Sequence: seq})
}

// --- receive ---

// nftRecv is the ICS-721 application's OnRecvPacket: mint vouchers of a class arriving from
// its source (the only direction the devnet sends).
func (m *Module) nftRecv(env sim.Env, p *channelv1.Packet) Ack {
	data, err := ParseNFTPacketData(p.Data)
	if err == nil {
		err = m.receiveNFTs(env, p, data)
	}
	ack := SuccessAck()
	if err != nil {
		ack = ErrorAckFromErr(err)
	}
	ev := event("non_fungible_token_packet", "module", NFTModule, "sender", data.Sender, "receiver", data.Receiver,
		"class_id", data.ClassID, "token_ids", joinIDs(data.TokenIDs), "memo", data.Memo, "success", strconv.FormatBool(!ack.IsErr))
	if err != nil {
		ev.Attributes = append(ev.Attributes, attr("error", err.Error()))
	}
	env.Emit(ev)
	return ack
}

func (m *Module) receiveNFTs(env sim.Env, p *channelv1.Packet, data NFTPacketData) error {
	if !m.nftOn() || m.nftCfg().Receiver == nil {
		return coded(NFTModule, 9, "this chain does not receive non-fungible tokens")
	}
	receiver, err := address.ParseAccount(env.AddressPrefix(), data.Receiver)
	if err != nil {
		return coded("sdk", 7, fmt.Sprintf("failed to decode receiver address %s: %v: invalid address", data.Receiver, err))
	}
	if strings.HasPrefix(data.ClassID, p.SourcePort+"/"+p.SourceChannel+"/") {
		return coded(NFTModule, 3, fmt.Sprintf("class %s returns to its source: not supported by the devnet: invalid class id", data.ClassID))
	}
	voucher := VoucherClass(p.DestinationPort, p.DestinationChannel, data.ClassID, m.nftCfg().PathNames)
	kv := env.Store(StoreName)
	if _, ok := kv.Get(nftTraceKey(voucher)); !ok {
		kv.Set(nftTraceKey(voucher), []byte(p.DestinationPort+"/"+p.DestinationChannel+"/"+data.ClassID))
	}
	tokens := make([]NFTToken, len(data.TokenIDs))
	for i, id := range data.TokenIDs {
		tokens[i] = NFTToken{ID: id}
		if len(data.TokenURIs) > 0 {
			tokens[i].URI = data.TokenURIs[i]
		}
	}
	return m.nftCfg().Receiver.ReceiveNFTs(env, voucher, data.ClassURI, tokens, receiver)
}

// --- acknowledgement and timeout (the sender's side) ---

// nftAck refunds the escrowed tokens of a failed transfer.
func (m *Module) nftAck(env sim.Env, p *channelv1.Packet, ack Ack) error {
	data, err := ParseNFTPacketData(p.Data)
	if err != nil {
		return err
	}
	if ack.IsErr {
		if err := m.nftRefund(env, p, data); err != nil {
			return err
		}
	}
	ev := event("non_fungible_token_packet", "module", NFTModule, "sender", data.Sender, "receiver", data.Receiver,
		"class_id", data.ClassID, "token_ids", joinIDs(data.TokenIDs), "memo", data.Memo, "acknowledgement", ack.Text())
	env.Emit(ev)
	return nil
}

func (m *Module) nftTimeout(env sim.Env, p *channelv1.Packet) error {
	data, err := ParseNFTPacketData(p.Data)
	if err != nil {
		return err
	}
	if err := m.nftRefund(env, p, data); err != nil {
		return err
	}
	env.Emit(event("timeout", "module", NFTModule, "refund_receiver", data.Sender, "class_id", data.ClassID,
		"token_ids", joinIDs(data.TokenIDs), "memo", data.Memo))
	return nil
}

// nftRefund gives escrowed tokens back to the sender (the source zone's refund).
func (m *Module) nftRefund(env sim.Env, p *channelv1.Packet, data NFTPacketData) error {
	sender, err := address.ParseAccount(env.AddressPrefix(), data.Sender)
	if err != nil {
		return coded("sdk", 7, fmt.Sprintf("failed to decode sender address %s: %v: invalid address", data.Sender, err))
	}
	kv := env.Store(StoreName)
	escrow := NFTEscrowAddress(p.SourcePort, p.SourceChannel)
	if m.vmClass(data.ClassID) {
		return m.nftCfg().Escrow.RefundNFTs(env, data.ClassID, data.TokenIDs, escrow, sender)
	}
	for _, id := range data.TokenIDs {
		t, ok := getNFTToken(kv, data.ClassID, id)
		if !ok || string(t.Owner) != string(escrow) {
			return coded(NFTModule, 7, fmt.Sprintf("nft %s/%s is not in escrow", data.ClassID, id))
		}
		t.Owner = sender
		if err := putJSON(kv, nftTokenKey(data.ClassID, id), t); err != nil {
			return err
		}
	}
	return nil
}

// --- traffic ---

// nftTraffic proposes, with the configured rate, one ICS-721 transfer of one or two tokens of
// a class that one account holds, to a random account over a random nft-transfer channel.
func (m *Module) nftTraffic(rng *rand.Rand, state sim.Query, accounts []sim.Account) []sim.Intent {
	if !m.nftOn() || m.nftCfg().Rate <= 0 || len(accounts) == 0 || rng.Float64() >= m.nftCfg().Rate {
		return nil
	}
	kv := state.Store(StoreName)
	var chs []Channel
	for _, ch := range channels(kv) {
		if isNFTPort(ch.PortID) {
			chs = append(chs, ch)
		}
	}
	if len(chs) == 0 {
		return nil
	}
	index := map[string]int{}
	for i, a := range accounts {
		index[string(a.Addr)] = i
	}
	// Held tokens grouped by (class, owner), in key order so the choice is a function of rng.
	type holding struct {
		class  string
		signer int
		ids    []string
	}
	var held []holding
	for _, c := range NFTClasses(kv) {
		by := map[int][]string{}
		for _, t := range NFTTokens(kv, c.ID) {
			if i, ok := index[string(t.Owner)]; ok {
				by[i] = append(by[i], t.ID)
			}
		}
		signers := make([]int, 0, len(by))
		for i := range by {
			signers = append(signers, i)
		}
		sort.Ints(signers)
		for _, i := range signers {
			held = append(held, holding{c.ID, i, by[i]})
		}
	}
	if len(held) == 0 {
		return nil
	}
	h := held[rng.IntN(len(held))]
	ch := chs[rng.IntN(len(chs))]
	n := 1 + rng.IntN(min(2, len(h.ids)))
	start := rng.IntN(len(h.ids) - n + 1)
	receiver := accounts[rng.IntN(len(accounts))]
	msg := &nfttransferv1.MsgTransfer{
		SourcePort: ch.PortID, SourceChannel: ch.ChannelID, ClassId: h.class,
		TokenIds: append([]string(nil), h.ids[start:start+n]...),
		Sender:   accounts[h.signer].Bech32, Receiver: bech32(prefixOr(ch.CounterpartyPrefix, state.AddressPrefix()), receiver.Addr),
		TimeoutHeight: &clientv1.Height{RevisionNumber: RevisionNumber(ch.CounterpartyChainID),
			RevisionHeight: getUint(kv, clientHeightKey(ch.ClientID)) + 100_000},
	}
	return []sim.Intent{{Signer: h.signer, Msgs: []proto.Message{msg}}}
}

// NFTTraces maps every voucher class this chain received to its prefixed path
// (port/channel/classId).
func NFTTraces(kv sim.KVReader) map[string]string {
	out := map[string]string{}
	kv.Iterate("nfttrace/", func(k string, v []byte) bool {
		out[strings.TrimPrefix(k, "nfttrace/")] = string(v)
		return true
	})
	return out
}
