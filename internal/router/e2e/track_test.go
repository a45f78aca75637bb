package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/denom"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/client"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/testutil"
)

// trackNet is the devnet with a router whose tracker is driven block by block (Step after
// every devnet block), so each status read sees every block produced so far.
type trackNet struct {
	*wallet
	tr  *track.Tracker
	st  *track.Store
	reg *registry.Registry
	// goldens counts the golden files each test wrote (see golden).
	goldens map[string]int
}

func startTrackNet(t *testing.T, dsn string) *trackNet {
	tn := startNet(t)
	reg, err := registry.Load(tn.dir)
	if err != nil {
		t.Fatal(err)
	}
	live := registry.NewLive(reg)
	if err := live.Refresh(context.Background(), &registry.RESTSource{}); err != nil {
		t.Fatal(err)
	}
	if dsn == "" {
		dsn = "sqlite:" + filepath.Join(t.TempDir(), "track.db")
	}
	st, err := track.OpenStore(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	tr := track.New(st, live, track.Config{Probe: &track.RESTProber{Interval: time.Nanosecond}})
	srv := httptest.NewServer(api.New(api.Config{Balances: &registry.RESTBalances{}, Tracker: tr}, live, nil, prometheus.NewRegistry()))
	t.Cleanup(srv.Close)
	return &trackNet{wallet: newWallet(t, tn, srv.URL, live.Current()), tr: tr, st: st, reg: live.Current()}
}

// submit sends a signed tx through /v2/tx/submit and returns its hash.
func (n *trackNet) submit(chainID string, raw []byte) string {
	n.t.Helper()
	st, body := n.post("/v2/tx/submit", map[string]any{"chain_id": chainID, "tx": base64.StdEncoding.EncodeToString(raw)})
	var res track.TrackResponse
	if err := json.Unmarshal(body, &res); err != nil || st != http.StatusOK {
		n.t.Fatalf("submit on %s: %d %s", chainID, st, body)
	}
	if res.TxHash != track.TxHash(raw) || res.ExplorerLink == "" {
		n.t.Fatalf("submit answered %+v", res)
	}
	n.golden("submit", body)
	return res.TxHash
}

// loopbackURL matches the devnet servers' URLs, whose ports change from run to run.
var loopbackURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)

// txHashHex matches a tx hash where the router writes one (not an ibc/ denom's hash).
var txHashHex = regexp.MustCompile(`("tx_hash": "|/txs/)[0-9A-F]{64}`)

// masked replaces what changes from run to run in an answer: the devnet servers' ports, and
// tx hashes (the router's messages carry a timeout taken from the wall clock, so the signed
// bytes differ), each hash by TX<n> in order of first appearance so links between txs stay
// visible. Block times are the devnet's (fixed genesis time) and stay.
func masked(b []byte) []byte {
	b = loopbackURL.ReplaceAll(b, []byte("http://127.0.0.1:PORT"))
	ids := map[string]string{}
	return txHashHex.ReplaceAllFunc(b, func(m []byte) []byte {
		prefix, h := m[:len(m)-64], string(m[len(m)-64:])
		id, ok := ids[h]
		if !ok {
			id = fmt.Sprintf("TX%d", len(ids)+1)
			ids[h] = id
		}
		return append(prefix[:len(prefix):len(prefix)], id...)
	})
}

// golden compares an answer with testdata/<kind>/<test>-<k>.json (the test's k-th of that
// kind), indented in the order the router wrote it, masked (see masked).
func (n *trackNet) golden(kind string, body []byte) {
	n.t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		n.t.Fatalf("%s answer is not JSON: %v\n%s", kind, err, body)
	}
	buf.WriteByte('\n')
	name := strings.ReplaceAll(strings.TrimPrefix(n.t.Name(), "TestTrackEndToEnd/"), "/", "_")
	if n.goldens == nil {
		n.goldens = map[string]int{}
	}
	n.goldens[kind+"/"+name]++
	file := fmt.Sprintf("%s/%s-%d.json", kind, name, n.goldens[kind+"/"+name])
	testutil.Golden(n.t, file, masked(buf.Bytes()))
}

// status reads /v2/tx/status; every answer must validate against the Skip OpenAPI schema.
func (n *trackNet) status(chainID, hash string) (track.StatusResponse, []byte) {
	n.t.Helper()
	resp, err := http.Get(n.router + "/v2/tx/status?" + url.Values{"chain_id": {chainID}, "tx_hash": {hash}}.Encode())
	if err != nil {
		n.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		n.t.Fatalf("status: %d %s", resp.StatusCode, body)
	}
	var s track.StatusResponse
	if err := json.Unmarshal(body, &s); err != nil {
		n.t.Fatal(err)
	}
	checkSkipStatus(n.t, body)
	dumpStatus(n.t, chainID, hash, resp.Header.Get("Content-Type"), body)
	return s, body
}

// statusDump, when set, is a directory where every status answer the tests read is written,
// so Skip's own JavaScript client can be run over them (scripts/skipclient).
var statusDump = flag.String("status-dump", "", "write every /v2/tx/status answer read to this directory")

var dumped atomic.Int64

func dumpStatus(t *testing.T, chainID, hash, contentType string, body []byte) {
	t.Helper()
	if *statusDump == "" {
		return
	}
	rec, err := json.Marshal(struct {
		Test        string          `json:"test"`
		ChainID     string          `json:"chain_id"`
		TxHash      string          `json:"tx_hash"`
		ContentType string          `json:"content_type"`
		Body        json.RawMessage `json:"body"`
	}{t.Name(), chainID, hash, contentType, body})
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%05d.json", dumped.Add(1))
	if err := os.MkdirAll(*statusDump, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*statusDump, name), rec, 0o644); err != nil {
		t.Fatal(err)
	}
}

// follow steps blocks (the tracker after each) until until holds, and returns the status and
// the detailed states seen on the way.
func (n *trackNet) follow(chainID, hash string, until func(track.StatusResponse) bool) (track.StatusResponse, []string) {
	n.t.Helper()
	var seen []string
	for i := 0; i < maxSteps; i++ {
		if err := n.tn.step(n.ctx); err != nil {
			n.t.Fatal(err)
		}
		if err := n.tr.Step(n.ctx); err != nil {
			n.t.Fatal(err)
		}
		s, body := n.status(chainID, hash)
		if len(seen) == 0 || seen[len(seen)-1] != s.State {
			seen = append(seen, s.State)
		}
		if until(s) {
			n.t.Logf("after %d blocks: %s", i+1, body)
			n.golden("status", body)
			return s, seen
		}
	}
	_, body := n.status(chainID, hash)
	n.t.Fatalf("status did not get there within %d blocks (states %v):\n%s\n%s", maxSteps, seen, body, n.events())
	return track.StatusResponse{}, seen
}

func terminal(s track.StatusResponse) bool { return track.Terminal(s.State) }

// hopWant is the expected kind and state of one transfer_sequence entry.
type hopWant struct {
	kind  string // "ibc" or "opinit"
	from  string
	to    string
	state string
}

// checkHops checks the hops' kinds, chains and states, and that every linked tx is on the
// named chain and carries the event the link claims.
func (n *trackNet) checkHops(s track.StatusResponse, want []hopWant) {
	n.t.Helper()
	if len(s.TransferSequence) != len(want) {
		b, _ := json.Marshal(s)
		n.t.Fatalf("%d hops, want %d: %s", len(s.TransferSequence), len(want), b)
	}
	for i, w := range want {
		h := s.TransferSequence[i]
		switch w.kind {
		case "ibc":
			x := h.IBCTransfer
			if x == nil || x.FromChainID != w.from || x.ToChainID != w.to || x.State != w.state {
				n.t.Fatalf("hop %d: %+v, want %+v", i, x, w)
			}
			p := x.PacketTxs
			n.checkTx(p.SendTx, w.from, "send_packet", true)
			switch {
			case x.State == track.TransferSuccess:
				n.checkTx(p.ReceiveTx, w.to, "recv_packet", true)
				n.checkTx(p.AcknowledgeTx, w.from, "acknowledge_packet", true)
				if p.Error != nil || p.TimeoutTx != nil {
					n.t.Fatalf("hop %d succeeded with %+v", i, p)
				}
			case x.State == track.TransferFailure && p.TimeoutTx != nil:
				n.checkTx(p.TimeoutTx, w.from, "timeout_packet", true)
				if p.ReceiveTx != nil || p.Error == nil || p.Error.Type != track.PacketErrorTimeout {
					n.t.Fatalf("hop %d timed out with %+v", i, p)
				}
			case x.State == track.TransferFailure:
				n.checkTx(p.ReceiveTx, w.to, "recv_packet", true)
				n.checkTx(p.AcknowledgeTx, w.from, "acknowledge_packet", true)
				if p.Error == nil || p.Error.Type != track.PacketErrorAck || p.Error.Message == "" {
					n.t.Fatalf("hop %d failed without an ack error: %+v", i, p)
				}
			}
		case "opinit":
			x := h.OPInitTransfer
			if x == nil || x.FromChainID != w.from || x.ToChainID != w.to || x.State != w.state {
				n.t.Fatalf("hop %d: %+v, want %+v", i, x, w)
			}
			ev := "initiate_token_deposit"
			recv := "finalize_token_deposit"
			if x.Withdrawal != nil {
				ev, recv = "initiate_token_withdrawal", "finalize_token_withdrawal"
			}
			n.checkTx(x.Txs.SendTx, w.from, ev, true)
			n.checkTx(x.Txs.ReceiveTx, w.to, recv, x.State == track.OPInitReceived)
		default:
			n.t.Fatalf("hop kind %q", w.kind)
		}
	}
}

// checkTx checks a linked tx: present (or absent when !want), on chainID, with an event of typ,
// at the time its block says, with an explorer link.
func (n *trackNet) checkTx(ct *track.ChainTx, chainID, typ string, want bool) {
	n.t.Helper()
	if !want {
		if ct != nil {
			n.t.Fatalf("unexpected %s tx %+v", typ, ct)
		}
		return
	}
	if ct == nil {
		n.t.Fatalf("no %s tx linked on %s", typ, chainID)
	}
	if ct.ChainID != chainID || ct.ExplorerLink == "" || !strings.HasSuffix(ct.ExplorerLink, ct.TxHash) {
		n.t.Fatalf("%s tx %+v: want chain %s and an explorer link", typ, ct, chainID)
	}
	res, err := n.rpc[chainID].Tx(n.ctx, ct.TxHash, false)
	if err != nil {
		n.t.Fatalf("%s tx %s on %s: %v", typ, ct.TxHash, chainID, err)
	}
	found := false
	for _, ev := range res.TxResult.Events {
		found = found || ev.Type == typ
	}
	if !found {
		n.t.Fatalf("%s tx %s on %s has no %s event", typ, ct.TxHash, chainID, typ)
	}
	blk, err := n.rpc[chainID].Block(n.ctx, res.Height)
	if err != nil {
		n.t.Fatal(err)
	}
	if at := blk.Block.Header.Time.UTC().Format(time.RFC3339); at != ct.OnChainAt {
		n.t.Fatalf("%s tx on_chain_at %s, block time %s", typ, ct.OnChainAt, at)
	}
}

func (n *trackNet) checkEnd(s track.StatusResponse, state, status, releaseChain, releaseDenom, amount string) {
	n.t.Helper()
	if s.State != state || s.Status != status {
		n.t.Fatalf("state %s / %s, want %s / %s", s.State, s.Status, state, status)
	}
	r := s.TransferAssetRelease
	if r == nil || r.ChainID != releaseChain || r.Denom != releaseDenom || r.Amount == nil || *r.Amount != amount || !r.Released {
		n.t.Fatalf("transfer_asset_release %+v, want %s %s %s released", r, amount, releaseDenom, releaseChain)
	}
	if s.NextBlockingTransfer != nil {
		n.t.Fatalf("terminal with next_blocking_transfer %+v", s.NextBlockingTransfer)
	}
	if (state == track.StateCompletedSuccess) != (s.Error == nil) {
		n.t.Fatalf("state %s with error %+v", state, s.Error)
	}
}

// channel is chainID's transfer channel to the counterparty chain.
func (n *trackNet) channel(chainID, to string) string {
	for _, ch := range n.reg.Chain(chainID).Channels {
		if ch.CounterpartyChainID == to {
			return ch.ID
		}
	}
	n.t.Fatalf("no channel %s → %s", chainID, to)
	return ""
}

// ibcTransfer signs a hand-built MsgTransfer (the cases the router would never produce:
// bad receivers, tiny timeouts).
func (n *trackNet) ibcTransfer(chainID string, signer int, to, denom, amount, receiver, memo string, timeout uint64) []byte {
	if timeout == 0 {
		timeout = uint64(genesisTime.Add(24 * time.Hour).UnixNano())
	}
	m := &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: n.channel(chainID, to),
		Token: &basev1beta1.Coin{Denom: denom, Amount: amount}, Sender: n.tn.addr(n.t, chainID, signer), Receiver: receiver,
		TimeoutHeight: &clientv1.Height{}, TimeoutTimestamp: timeout, Memo: memo}
	return n.sign(chainID, signer, []proto.Message{m}, txcodec.SignModeDirect, 1_000_000)
}

// TestTrackEndToEnd tracks every kind of transfer on the devnet through /v2/tx/submit and
// /v2/tx/status until its terminal state, and checks each hop and each linked tx.
func TestTrackEndToEnd(t *testing.T) {
	n := startTrackNet(t, "")
	direct := txcodec.SignModeDirect
	l2Move := denom.L2(2, "uinit")
	const user = 0
	r := func(i int) int { return recipientBase + i }
	route := func(t *testing.T, tc e2eCase) (string, []byte) {
		_, mr, _ := n.prepare(tc)
		ctx := mr.Txs[0].CosmosTx
		return ctx.ChainID, n.sign(ctx.ChainID, tc.signer, n.decode(ctx.Msgs), tc.mode, 2_000_000)
	}

	t.Run("direct_ibc", func(t *testing.T) {
		n.t = t
		chainID, raw := route(t, e2eCase{srcChain: moveID, srcDenom: "uusdc", dstChain: l1ID, dstDenom: ibc("transfer/channel-1/uusdc"),
			amount: "700000", signer: user, recipient: r(4), mode: direct, wantOps: 1})
		hash := n.submit(chainID, raw)
		s, seen := n.follow(chainID, hash, terminal)
		n.checkEnd(s, track.StateCompletedSuccess, track.StatusCompleted, l1ID, ibc("transfer/channel-1/uusdc"), "700000")
		n.checkHops(s, []hopWant{{"ibc", moveID, l1ID, track.TransferSuccess}})
		t.Logf("states %v", seen)
	})
	t.Run("multi_hop_forward", func(t *testing.T) {
		n.t = t
		chainID, raw := route(t, e2eCase{srcChain: moveID, srcDenom: "uusdc", dstChain: wasmID, dstDenom: ibc("transfer/channel-0/transfer/channel-1/uusdc"),
			amount: "450000", signer: user, recipient: r(6), mode: direct, wantOps: 2})
		hash := n.submit(chainID, raw)
		s, _ := n.follow(chainID, hash, terminal)
		n.checkEnd(s, track.StateCompletedSuccess, track.StatusCompleted, wasmID, ibc("transfer/channel-0/transfer/channel-1/uusdc"), "450000")
		n.checkHops(s, []hopWant{{"ibc", moveID, l1ID, track.TransferSuccess}, {"ibc", l1ID, wasmID, track.TransferSuccess}})
	})
	t.Run("opinit_deposit", func(t *testing.T) {
		n.t = t
		chainID, raw := route(t, e2eCase{srcChain: l1ID, srcDenom: "uinit", dstChain: moveID, dstDenom: l2Move, amount: "3000000",
			signer: user, recipient: r(2), mode: direct, wantOps: 1})
		hash := n.submit(chainID, raw)
		s, _ := n.follow(chainID, hash, terminal)
		n.checkEnd(s, track.StateCompletedSuccess, track.StatusCompleted, moveID, l2Move, "3000000")
		n.checkHops(s, []hopWant{{"opinit", l1ID, moveID, track.OPInitReceived}})
	})
	t.Run("deposit_with_hook", func(t *testing.T) {
		n.t = t
		dst := ibc("transfer/channel-0/transfer/channel-1/" + l2Move)
		chainID, raw := route(t, e2eCase{srcChain: l1ID, srcDenom: "uinit", dstChain: wasmID, dstDenom: dst, amount: "800000",
			signer: user, recipient: r(9), extra: map[string]any{"allow_amount_hooks": true}, mode: direct, wantOps: 3, wantHook: true})
		hash := n.submit(chainID, raw)
		s, _ := n.follow(chainID, hash, terminal)
		n.checkEnd(s, track.StateCompletedSuccess, track.StatusCompleted, wasmID, dst, "800000")
		n.checkHops(s, []hopWant{{"opinit", l1ID, moveID, track.OPInitReceived},
			{"ibc", moveID, l1ID, track.TransferSuccess}, {"ibc", l1ID, wasmID, track.TransferSuccess}})
	})
	t.Run("deposit_hook_fails", func(t *testing.T) {
		n.t = t
		// A hook that is not a signed tx: the deposit is credited, the hook fails.
		m := &ophostv1.MsgInitiateTokenDeposit{Sender: n.tn.addr(t, l1ID, user), BridgeId: 2, To: n.tn.addr(t, moveID, r(13)),
			Amount: &basev1beta1.Coin{Denom: "uinit", Amount: "120000"}, Data: []byte("not a tx")}
		hash := n.submit(l1ID, n.sign(l1ID, user, []proto.Message{m}, direct, 1_000_000))
		s, _ := n.follow(l1ID, hash, terminal)
		n.checkEnd(s, track.StateCompletedError, track.StatusCompleted, moveID, l2Move, "120000")
		n.checkHops(s, []hopWant{{"opinit", l1ID, moveID, track.OPInitReceived}})
		if e := s.TransferSequence[0].OPInitTransfer.Error; e == nil || !strings.HasPrefix(*e, "hook failed") {
			t.Fatalf("hook failure not reported: %v", e)
		}
	})
	t.Run("op_withdrawal_claimable_then_claimed", func(t *testing.T) {
		n.t = t
		chainID, raw := route(t, e2eCase{srcChain: moveID, srcDenom: l2Move, dstChain: l1ID, dstDenom: "uinit", amount: "1200000",
			signer: r(2), recipient: r(5), extra: map[string]any{"is_op_withdraw": true}, mode: direct, wantOps: 1})
		hash := n.submit(chainID, raw)
		s, _ := n.follow(chainID, hash, func(s track.StatusResponse) bool {
			h := s.TransferSequence
			return len(h) == 1 && h[0].OPInitTransfer.Withdrawal != nil && h[0].OPInitTransfer.Withdrawal.State == track.WithdrawalClaimable
		})
		wd := s.TransferSequence[0].OPInitTransfer.Withdrawal
		if s.State != track.StatePending || s.Status != track.StatePending || s.NextBlockingTransfer == nil || wd.OutputIndex == "" ||
			wd.ClaimableAt == "" || s.TransferAssetRelease == nil || s.TransferAssetRelease.Released {
			t.Fatalf("claimable withdrawal: %+v %+v", s, wd)
		}
		n.checkHops(s, []hopWant{{"opinit", moveID, l1ID, track.OPInitSent}})
		n.claim(wd.ExecutorURL, wd.L2Sequence)
		s, _ = n.follow(chainID, hash, terminal)
		n.checkEnd(s, track.StateCompletedSuccess, track.StatusCompleted, l1ID, "uinit", "1200000")
		n.checkHops(s, []hopWant{{"opinit", moveID, l1ID, track.OPInitReceived}})
		if st := s.TransferSequence[0].OPInitTransfer.Withdrawal.State; st != track.WithdrawalClaimed {
			t.Fatalf("withdrawal state %s after the claim", st)
		}
	})
	t.Run("timeout_refund", func(t *testing.T) {
		n.t = t
		before := n.balance(moveID, n.tn.addr(t, moveID, user), "uusdc")
		defer n.refunded(moveID, user, "uusdc", before)
		top, err := n.rpc[moveID].Block(n.ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The next block (one interval later) sends it; the receiving block comes after the timeout.
		timeout := uint64(top.Block.Header.Time.Add(1500 * time.Millisecond).UnixNano())
		raw := n.ibcTransfer(moveID, user, l1ID, "uusdc", "330000", n.tn.addr(t, l1ID, r(14)), "", timeout)
		hash := n.submit(moveID, raw)
		s, _ := n.follow(moveID, hash, terminal)
		n.checkEnd(s, track.StateCompletedError, track.StatusCompleted, moveID, "uusdc", "330000")
		n.checkHops(s, []hopWant{{"ibc", moveID, l1ID, track.TransferFailure}})
		if s.TransferSequence[0].IBCTransfer.PacketTxs.TimeoutTx == nil {
			t.Fatal("no timeout tx")
		}
	})
	t.Run("ack_error_refund", func(t *testing.T) {
		n.t = t
		before := n.balance(moveID, n.tn.addr(t, moveID, user), "uusdc")
		defer n.refunded(moveID, user, "uusdc", before)
		raw := n.ibcTransfer(moveID, user, l1ID, "uusdc", "210000", "not-an-address", "", 0)
		hash := n.submit(moveID, raw)
		s, seen := n.follow(moveID, hash, terminal)
		n.checkEnd(s, track.StateCompletedError, track.StatusCompleted, moveID, "uusdc", "210000")
		n.checkHops(s, []hopWant{{"ibc", moveID, l1ID, track.TransferFailure}})
		if !strings.Contains(s.Error.Message, "failed") {
			t.Fatalf("error %+v", s.Error)
		}
		t.Logf("states %v", seen)
	})
	t.Run("failed_forward_refund", func(t *testing.T) {
		n.t = t
		before := n.balance(moveID, n.tn.addr(t, moveID, user), "uusdc")
		defer n.refunded(moveID, user, "uusdc", before)
		memo := fmt.Sprintf(`{"forward":{"receiver":"not-an-address","port":"transfer","channel":%q}}`, n.channel(l1ID, wasmID))
		raw := n.ibcTransfer(moveID, user, l1ID, "uusdc", "190000", n.tn.addr(t, l1ID, r(15)), memo, 0)
		hash := n.submit(moveID, raw)
		s, seen := n.follow(moveID, hash, terminal)
		n.checkEnd(s, track.StateCompletedError, track.StatusCompleted, moveID, "uusdc", "190000")
		n.checkHops(s, []hopWant{{"ibc", moveID, l1ID, track.TransferFailure}, {"ibc", l1ID, wasmID, track.TransferFailure}})
		if !containsState(seen, track.StatePendingError) {
			t.Logf("states %v (the error ack travelled back within one block)", seen)
		}
	})
	t.Run("failed_tx", func(t *testing.T) {
		n.t = t
		// Spends more than the account has: included with a non-zero code.
		raw := n.ibcTransfer(moveID, user, l1ID, "uusdc", "1000000000000000000000000", n.tn.addr(t, l1ID, r(14)), "", 0)
		res, err := n.rpc[moveID].BroadcastTxSync(n.ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		hash := strings.ToUpper(hex.EncodeToString(res.Hash))
		st, body := n.post("/v2/tx/track", map[string]string{"chain_id": moveID, "tx_hash": hash})
		if res.Code != 0 {
			t.Fatalf("the devnet refused the tx at CheckTx (code %d): it never lands in a block, so there is nothing to track", res.Code)
		}
		if st != http.StatusOK {
			t.Fatalf("track: %d %s", st, body)
		}
		n.golden("track", body)
		s, _ := n.follow(moveID, hash, terminal)
		if s.State != track.StateCompletedError || s.Status != track.StatusCompleted || s.Error == nil || s.Error.Type != track.StatusErrorExecution {
			t.Fatalf("failed tx: %+v", s)
		}
		// One transfer carries the failure: Skip's client ends a route on transfers[0].state.
		if len(s.Transfers) != 1 || s.Transfers[0].State != track.StateCompletedError || s.Transfers[0].Error == nil || len(s.Transfers[0].TransferSequence) != 0 {
			t.Fatalf("failed tx transfers: %+v", s.Transfers)
		}
	})
}

// refunded checks that a failed transfer's refund restored the sender's balance (the tests pay
// no fees).
func (n *trackNet) refunded(chainID string, signer int, denom string, before *big.Int) {
	if n.t.Failed() {
		return
	}
	if after := n.balance(chainID, n.tn.addr(n.t, chainID, signer), denom); after.Cmp(before) != 0 {
		n.t.Fatalf("balance %s %s after the refund, %s before", after, denom, before)
	}
}

func containsState(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// claim builds MsgFinalizeTokenWithdrawal from the executor's /withdrawal/{sequence} and sends
// it on L1 as localnet's first user.
func (n *trackNet) claim(executor, sequence string) {
	t := n.t
	wd, err := client.Withdrawal(n.ctx, executor, sequence)
	if err != nil {
		t.Fatal(err)
	}
	m := wd.Claim(n.tn.addr(t, l1ID, 0))
	n.broadcast(l1ID, n.sign(l1ID, 0, []proto.Message{m}, txcodec.SignModeDirect, 1_000_000))
}

var (
	skipOnce   sync.Once
	skipDoc    *openapi3.T
	skipStatus *openapi3.Schema
	skipErr    error
)

// boolRequired matches `required: true|false` on a property, which Skip's spec writes although
// OpenAPI 3.0 wants a list on the object; the loader rejects it.
var boolRequired = regexp.MustCompile(`(?m)^\s*required:\s*(true|false)\s*$\n?`)

// checkSkipStatus validates a status body against the 200 schema of GET /v2/tx/status in
// Skip's published OpenAPI document (internal/router/api/testdata, a verbatim copy), as a Skip
// client would read it.
func checkSkipStatus(t *testing.T, body []byte) {
	t.Helper()
	skipOnce.Do(func() {
		raw, err := os.ReadFile("../api/testdata/skip-go-api-openapi.yml")
		if err != nil {
			skipErr = err
			return
		}
		doc, err := openapi3.NewLoader().LoadFromData(boolRequired.ReplaceAll(raw, nil))
		if err != nil {
			skipErr = err
			return
		}
		skipDoc = doc
		op := doc.Paths.Find("/v2/tx/status").GetOperation(http.MethodGet)
		skipStatus = op.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	})
	if skipErr != nil {
		t.Fatalf("Skip OpenAPI: %v", skipErr)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if errs := schemaErrors(skipStatus.VisitJSON(v, openapi3.MultiErrors())); len(errs) > 0 {
		t.Fatalf("status answer does not validate against Skip's StatusTxResponse: %v\n%s", errs, body)
	}
}

// schemaErrors flattens a validation error, accepting a value that matches several oneOf
// variants (Skip's variants are objects whose properties are all optional).
func schemaErrors(err error) []string {
	if err == nil {
		return nil
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) && se.SchemaField == "oneOf" && strings.Contains(se.Reason, "more than one") {
		return nil
	}
	var multi openapi3.MultiError
	if errors.As(err, &multi) {
		var out []string
		for _, e := range multi {
			out = append(out, schemaErrors(e)...)
		}
		return out
	}
	return []string{err.Error()}
}

// TestSkipStatusSchemaHasTeeth: the schema check fails on a mistyped status, so a pass means
// something.
func TestSkipStatusSchemaHasTeeth(t *testing.T) {
	checkSkipStatus(t, []byte(`{"state":"STATE_PENDING","status":"STATE_PENDING","transfer_sequence":[]}`))
	var v any
	_ = json.Unmarshal([]byte(`{"state":"STATE_BOGUS","transfer_sequence":[{"ibc_transfer":{"state":"TRANSFER_NOPE","from_chain_id":"a","to_chain_id":"b","packet_txs":{}}}]}`), &v)
	if len(schemaErrors(skipStatus.VisitJSON(v, openapi3.MultiErrors()))) < 2 {
		t.Fatal("a status with unknown states validates against Skip's schema")
	}
	for _, path := range []string{"/v2/fungible/route", "/v2/fungible/msgs"} {
		schema := skipDoc.Paths.Find(path).GetOperation(http.MethodPost).Responses.Status(200).Value.Content.Get("application/json").Schema.Value
		var bad any
		_ = json.Unmarshal([]byte(`{"operations":"nope","amount_in":1,"txs":"x","msgs":3}`), &bad)
		if len(schemaErrors(schema.VisitJSON(bad, openapi3.MultiErrors()))) == 0 {
			t.Fatalf("a mistyped %s answer validates against Skip's schema", path)
		}
	}
}

// checkSkipAnswer validates a 200 answer of POST path against its schema in Skip's OpenAPI
// document, as checkSkipStatus does for the status.
func checkSkipAnswer(t *testing.T, path string, body []byte) {
	t.Helper()
	checkSkipStatus(t, []byte(`{"state":"STATE_PENDING","status":"STATE_PENDING","transfer_sequence":[]}`)) // loads the document
	op := skipDoc.Paths.Find(path).GetOperation(http.MethodPost)
	if op == nil {
		t.Fatalf("Skip's OpenAPI document has no POST %s", path)
	}
	schema := op.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if errs := schemaErrors(schema.VisitJSON(v, openapi3.MultiErrors())); len(errs) > 0 {
		t.Fatalf("POST %s answer does not validate against Skip's schema: %v\n%s", path, errs, body)
	}
}
