package devnet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/denom"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	signingv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/signing/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
)

const (
	l1ID   = "initia-devnet-1"
	evmID  = "minievm-devnet-1"
	moveID = "minimove-devnet-1"
	wasmID = "miniwasm-devnet-1"
	hubID  = "cosmoshub-devnet-1"
)

// client is a wallet over one chain's public endpoints only.
type client struct {
	t    *testing.T
	n    *Network
	id   string
	rpc  *comet.Client
	rest *cosmosrest.Client
}

func newClient(t *testing.T, n *Network, id string) *client {
	t.Helper()
	e := n.Endpoints()[id]
	rpc, err := comet.New(e.RPC)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := cosmosrest.New(e.REST)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, n: n, id: id, rpc: rpc, rest: rest}
}

func (c *client) user(i int) (*txcodec.PrivKey, string) {
	c.t.Helper()
	k, err := c.n.UserKey(c.id, i)
	if err != nil {
		c.t.Fatal(err)
	}
	return k, c.n.Address(c.id, k)
}

// sign builds a tx for key with the account number and next sequence read over REST
// (seqDelta shifts the sequence, for the wrong-sequence case).
func (c *client) sign(key *txcodec.PrivKey, mode signingv1beta1.SignMode, seqDelta int, msgs ...proto.Message) *txcodec.Builder {
	c.t.Helper()
	num, seq, err := c.n.Account(context.Background(), c.id, c.n.Address(c.id, key))
	if err != nil {
		c.t.Fatal(err)
	}
	return &txcodec.Builder{ChainID: c.id, Msgs: msgs, GasLimit: 2_000_000, SignMode: mode,
		Signers: []txcodec.Signer{{Key: key, AccountNumber: num, Sequence: uint64(int(seq) + seqDelta)}}}
}

func (c *client) broadcast(raw []byte) *comet.ResultBroadcastTx {
	c.t.Helper()
	res, err := c.rpc.BroadcastTxSync(context.Background(), raw)
	if err != nil {
		c.t.Fatal(err)
	}
	return res
}

// send signs and broadcasts msgs, failing the test unless CheckTx accepts them; it returns
// the tx hash.
func (c *client) send(key *txcodec.PrivKey, mode signingv1beta1.SignMode, msgs ...proto.Message) string {
	c.t.Helper()
	raw, err := c.sign(key, mode, 0, msgs...).Build()
	if err != nil {
		c.t.Fatal(err)
	}
	res := c.broadcast(raw)
	if res.Code != 0 {
		c.t.Fatalf("%s: broadcast code %d %s: %s", c.id, res.Code, res.Codespace, res.Log)
	}
	return txcodec.Hash(raw)
}

// tx fetches a committed tx over /tx and requires it to have succeeded.
func (c *client) tx(hash string) *comet.ResultTx {
	c.t.Helper()
	r, err := c.rpc.Tx(context.Background(), hash, false)
	if err != nil {
		c.t.Fatalf("%s: tx %s: %v", c.id, hash, err)
	}
	if r.TxResult.Code != 0 {
		c.t.Fatalf("%s: tx %s failed: %s", c.id, hash, r.TxResult.Log)
	}
	return r
}

func (c *client) balance(addr, d string) string {
	c.t.Helper()
	coins, err := c.rest.Balances(context.Background(), addr, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, co := range coins {
		if co.Denom == d {
			return co.Amount
		}
	}
	return "0"
}

// found is one event with its place.
type found struct {
	Height int64
	TxIdx  int
	Attrs  map[string]string
	Tx     []comet.Event // every event of the same tx
}

// events scans /block_results of heights [from, latest] for events of a type whose
// attributes include want.
func (c *client) events(from int64, typ string, want map[string]string) []found {
	c.t.Helper()
	ctx := context.Background()
	top, err := c.rpc.LatestHeight(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	var out []found
	for h := from; h <= top; h++ {
		br, err := c.rpc.BlockResults(ctx, h)
		if err != nil {
			c.t.Fatal(err)
		}
		for i, r := range br.TxsResults {
			if r.Code != 0 {
				continue
			}
			for _, ev := range r.Events {
				if ev.Type != typ {
					continue
				}
				m := attrs(ev)
				ok := true
				for k, v := range want {
					if m[k] != v {
						ok = false
					}
				}
				if ok {
					out = append(out, found{Height: h, TxIdx: i, Attrs: m, Tx: r.Events})
				}
			}
		}
	}
	return out
}

// one requires exactly one matching event.
func (c *client) one(from int64, typ string, want map[string]string) found {
	c.t.Helper()
	fs := c.events(from, typ, want)
	if len(fs) != 1 {
		c.t.Fatalf("%s: %d %s events matching %v from height %d, want 1", c.id, len(fs), typ, want, from)
	}
	return fs[0]
}

func (c *client) height() int64 {
	c.t.Helper()
	h, err := c.rpc.LatestHeight(context.Background())
	if err != nil {
		c.t.Fatal(err)
	}
	return h
}

func attrs(ev comet.Event) map[string]string {
	m := map[string]string{}
	for _, a := range ev.Attributes {
		m[a.Key] = a.Value
	}
	return m
}

func eventOf(t *testing.T, evs []comet.Event, typ string) map[string]string {
	t.Helper()
	for _, e := range evs {
		if e.Type == typ {
			return attrs(e)
		}
	}
	t.Fatalf("no %s event in the tx", typ)
	return nil
}

// eventWith finds the event of a type in one tx whose attributes include want (relayer txs
// batch several packets, so a tx may hold several events of a type).
func eventWith(t *testing.T, evs []comet.Event, typ string, want map[string]string) map[string]string {
	t.Helper()
	for _, e := range evs {
		if e.Type != typ {
			continue
		}
		m, ok := attrs(e), true
		for k, v := range want {
			ok = ok && m[k] == v
		}
		if ok {
			return m
		}
	}
	t.Fatalf("no %s event with %v in the tx", typ, want)
	return nil
}

// packetData decodes an event's packet_data_hex (ICS-20 JSON).
func packetData(t *testing.T, m map[string]string) map[string]string {
	t.Helper()
	b, err := hex.DecodeString(m["packet_data_hex"])
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]string
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("packet data %s: %v", b, err)
	}
	return d
}

func sub(t *testing.T, a, b string) int64 {
	t.Helper()
	x, err1 := strconv.ParseInt(a, 10, 64)
	y, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("amounts %q %q", a, b)
	}
	return x - y
}

var successAckHex = hex.EncodeToString([]byte(`{"result":"AQ=="}`))

// TestEndToEnd is the devnet's cross-chain proof over HTTP only: signed transfers and
// deposits broadcast with broadcast_tx_sync, relayed by the network's relayer/executor, and
// every step checked in /tx, /block_results and REST balances.
func TestEndToEnd(t *testing.T) {
	n := startManual(t, 7, nil)
	produce(t, n, 2)
	l1, mv, hub := newClient(t, n, l1ID), newClient(t, n, moveID), newClient(t, n, hubID)
	timeout := uint64(genesis.Add(24 * time.Hour).UnixNano())

	// (a) IBC L1 → minimove (SIGN_MODE_DIRECT)
	t.Run("ibc direct", func(t *testing.T) {
		l1.t, mv.t = t, t
		key, from := l1.user(0)
		_, to := mv.user(0)
		before := l1.balance(from, "uinit")
		hash := l1.send(key, txcodec.SignModeDirect, &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-1",
			Token: &basev1beta1.Coin{Denom: "uinit", Amount: "1000"}, Sender: from, Receiver: to, TimeoutTimestamp: timeout})
		produce(t, n, 1)
		tx := l1.tx(hash)
		send := eventOf(t, tx.TxResult.Events, "send_packet")
		seq := send["packet_sequence"]
		if send["packet_src_channel"] != "channel-1" || send["packet_dst_channel"] != "channel-0" || send["packet_src_port"] != "transfer" {
			t.Fatalf("send_packet %v", send)
		}
		if d := packetData(t, send); d["denom"] != "uinit" || d["amount"] != "1000" || d["sender"] != from || d["receiver"] != to {
			t.Fatalf("packet data %v", d)
		}
		if it := eventOf(t, tx.TxResult.Events, "ibc_transfer"); it["denom"] != "uinit" || it["amount"] != "1000" {
			t.Fatalf("ibc_transfer %v", it)
		}
		produce(t, n, 4)
		recv := mv.one(tx.Height, "recv_packet", map[string]string{"packet_sequence": seq, "packet_dst_channel": "channel-0", "packet_src_channel": "channel-1"})
		if recv.Height <= tx.Height {
			t.Errorf("received at %d, sent at %d", recv.Height, tx.Height)
		}
		if recv.Attrs["packet_data_hex"] != send["packet_data_hex"] {
			t.Errorf("packet data differs")
		}
		wa := eventWith(t, recv.Tx, "write_acknowledgement", map[string]string{"packet_sequence": seq, "packet_dst_channel": "channel-0"})
		if wa["packet_ack_hex"] != successAckHex {
			t.Errorf("write_acknowledgement %v", wa)
		}
		if ftp := eventWith(t, recv.Tx, "fungible_token_packet", map[string]string{"receiver": to}); ftp["success"] != "true" || ftp["denom"] != "uinit" || ftp["amount"] != "1000" {
			t.Errorf("fungible_token_packet %v", ftp)
		}
		voucher := denom.IBC("transfer/channel-0", "uinit")
		eventWith(t, recv.Tx, "denomination_trace", map[string]string{"denom": voucher})
		ack := l1.one(tx.Height, "acknowledge_packet", map[string]string{"packet_sequence": seq, "packet_src_channel": "channel-1"})
		if ack.Height <= recv.Height {
			t.Errorf("acknowledged at %d, received at %d", ack.Height, recv.Height)
		}
		if got := sub(t, before, l1.balance(from, "uinit")); got != 1000 {
			t.Errorf("sender paid %d", got)
		}
		if got := mv.balance(to, voucher); got != "1000" {
			t.Errorf("receiver holds %s of %s", got, voucher)
		}
	})

	// (b) minimove → L1 → cosmoshub with a packet-forward memo (amino JSON signing)
	t.Run("ibc multi-hop pfm", func(t *testing.T) {
		l1.t, mv.t, hub.t = t, t, t
		key, from := mv.user(1)
		_, to := hub.user(1)
		memo := fmt.Sprintf(`{"forward":{"receiver":%q,"port":"transfer","channel":"channel-3"}}`, to)
		before := mv.balance(from, "uusdc")
		hash := mv.send(key, txcodec.SignModeLegacyAminoJSON, &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0",
			Token: &basev1beta1.Coin{Denom: "uusdc", Amount: "500"}, Sender: from, Receiver: "pfm", TimeoutTimestamp: timeout, Memo: memo})
		produce(t, n, 1)
		tx := mv.tx(hash)
		send1 := eventOf(t, tx.TxResult.Events, "send_packet")
		s1 := send1["packet_sequence"]
		if d := packetData(t, send1); d["memo"] != memo || d["denom"] != "uusdc" {
			t.Fatalf("hop-1 packet %v", d)
		}
		produce(t, n, 8)
		// L1: hop-1 receive and hop-2 send in one tx, no acknowledgement yet
		recv1 := l1.one(tx.Height, "recv_packet", map[string]string{"packet_sequence": s1, "packet_dst_channel": "channel-1"})
		// the forward: an ibc_transfer to the final receiver, and its send_packet on channel-3
		fwd := eventWith(t, recv1.Tx, "ibc_transfer", map[string]string{"receiver": to, "amount": "500"})
		// PFM received hop 1 into its override address (sha256(sha256("packetfowardmiddleware")
		// ‖ "<hop-1 dst channel>/<sender>")[:20]), memo emptied, and forwarded from it
		inner := sha256.Sum256([]byte("packetfowardmiddleware"))
		override := sha256.Sum256(append(inner[:], []byte("channel-1/"+from)...))
		pfm := engine.Bech32("init", override[:20])
		if fwd["sender"] != pfm {
			t.Errorf("forwarded by %s, want the PFM address %s", fwd["sender"], pfm)
		}
		if ftp := eventWith(t, recv1.Tx, "fungible_token_packet", map[string]string{"receiver": pfm}); ftp["success"] != "true" || ftp["memo"] != "" || ftp["amount"] != "500" {
			t.Errorf("hop-1 fungible_token_packet %v", ftp)
		}
		var send2 map[string]string
		for _, ev := range recv1.Tx {
			if m := attrs(ev); ev.Type == "send_packet" && m["packet_src_channel"] == "channel-3" && packetData(t, m)["receiver"] == to {
				send2 = m
			}
		}
		if send2 == nil {
			t.Fatalf("no hop-2 send_packet in the hop-1 receive tx")
		}
		s2 := send2["packet_sequence"]
		hop1Denom := "transfer/channel-1/uusdc"
		if d := packetData(t, send2); d["denom"] != hop1Denom || d["amount"] != "500" || d["sender"] != fwd["sender"] {
			t.Errorf("hop-2 packet %v (forwarded by %s)", d, fwd["sender"])
		}
		// cosmoshub: hop-2 receive with a success ack
		recv2 := hub.one(tx.Height, "recv_packet", map[string]string{"packet_sequence": s2, "packet_dst_channel": "channel-0", "packet_src_channel": "channel-3"})
		if wa := eventWith(t, recv2.Tx, "write_acknowledgement", map[string]string{"packet_sequence": s2, "packet_dst_channel": "channel-0"}); wa["packet_ack_hex"] != successAckHex {
			t.Errorf("hop-2 ack %v", wa)
		}
		// L1: hop-2 acknowledged, hop-1 acknowledgement written in the same tx
		ack2 := l1.one(tx.Height, "acknowledge_packet", map[string]string{"packet_sequence": s2, "packet_src_channel": "channel-3"})
		// the hop-1 acknowledgement is written once, in the tx acknowledging hop 2
		wa1 := l1.one(tx.Height, "write_acknowledgement", map[string]string{"packet_sequence": s1, "packet_dst_channel": "channel-1"})
		if wa1.Height != ack2.Height || wa1.TxIdx != ack2.TxIdx || wa1.Attrs["packet_ack_hex"] != successAckHex {
			t.Errorf("hop-1 write_acknowledgement at %d/%d %v; hop-2 acknowledged at %d/%d", wa1.Height, wa1.TxIdx, wa1.Attrs, ack2.Height, ack2.TxIdx)
		}
		// minimove: hop-1 acknowledged last
		ack1 := mv.one(tx.Height, "acknowledge_packet", map[string]string{"packet_sequence": s1, "packet_src_channel": "channel-0"})
		if !(tx.Height < recv1.Height && recv1.Height < recv2.Height && recv2.Height < ack2.Height && ack2.Height < ack1.Height) {
			t.Errorf("heights: send %d, recv1 %d, recv2 %d, ack2 %d, ack1 %d", tx.Height, recv1.Height, recv2.Height, ack2.Height, ack1.Height)
		}
		final := denom.IBC("transfer/channel-0/transfer/channel-1", "uusdc")
		if got := hub.balance(to, final); got != "500" {
			t.Errorf("cosmoshub receiver holds %s of %s", got, final)
		}
		if got := sub(t, before, mv.balance(from, "uusdc")); got != 500 {
			t.Errorf("sender paid %d", got)
		}
	})

	// (c) OPinit deposit L1 → minimove (bridge 2), amino JSON signing
	t.Run("opinit deposit", func(t *testing.T) {
		l1.t, mv.t = t, t
		key, from := l1.user(2)
		_, to := mv.user(2)
		l2 := denom.L2(2, "uinit")
		hash := l1.send(key, txcodec.SignModeLegacyAminoJSON, &ophostv1.MsgInitiateTokenDeposit{Sender: from, BridgeId: 2, To: to,
			Amount: &basev1beta1.Coin{Denom: "uinit", Amount: "777"}})
		produce(t, n, 1)
		tx := l1.tx(hash)
		dep := eventOf(t, tx.TxResult.Events, "initiate_token_deposit")
		if dep["bridge_id"] != "2" || dep["l1_denom"] != "uinit" || dep["l2_denom"] != l2 || dep["amount"] != "777" || dep["to"] != to || dep["from"] != from {
			t.Fatalf("initiate_token_deposit %v", dep)
		}
		produce(t, n, 3)
		fin := mv.one(tx.Height, "finalize_token_deposit", map[string]string{"l1_sequence": dep["l1_sequence"], "recipient": to})
		if fin.Attrs["success"] != "true" || fin.Attrs["denom"] != l2 || fin.Attrs["base_denom"] != "uinit" || fin.Attrs["amount"] != "777" ||
			fin.Attrs["finalize_height"] != strconv.FormatInt(tx.Height, 10) {
			t.Errorf("finalize_token_deposit %v (deposit at L1 height %d)", fin.Attrs, tx.Height)
		}
		if fin.Height <= tx.Height {
			t.Errorf("finalized at %d, deposited at %d", fin.Height, tx.Height)
		}
		if got := mv.balance(to, l2); got != "777" {
			t.Errorf("receiver holds %s of %s", got, l2)
		}
	})

	// (d) CheckTx rejections
	t.Run("rejections", func(t *testing.T) {
		l1.t = t
		key, from := l1.user(3)
		_, to := l1.user(0)
		msg := &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0",
			Token: &basev1beta1.Coin{Denom: "uinit", Amount: "1"}, Sender: from, Receiver: to, TimeoutTimestamp: timeout}
		raw, err := l1.sign(key, txcodec.SignModeDirect, 0, msg).BuildRaw()
		if err != nil {
			t.Fatal(err)
		}
		raw.Signatures[0][10] ^= 0xff
		bad, err := proto.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		if res := l1.broadcast(bad); res.Code != 4 || res.Codespace != "sdk" {
			t.Errorf("bad signature: code %d %q %s", res.Code, res.Codespace, res.Log)
		}
		for _, mode := range []signingv1beta1.SignMode{txcodec.SignModeDirect, txcodec.SignModeLegacyAminoJSON} {
			wrong, err := l1.sign(key, mode, 3, msg).Build()
			if err != nil {
				t.Fatal(err)
			}
			if res := l1.broadcast(wrong); res.Code != 32 || res.Codespace != "sdk" {
				t.Errorf("wrong sequence (mode %v): code %d %q %s", mode, res.Code, res.Codespace, res.Log)
			}
		}
		// the account is untouched: the right sequence still goes through
		l1.send(key, txcodec.SignModeDirect, msg)
	})
}
