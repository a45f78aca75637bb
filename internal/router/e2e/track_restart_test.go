package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/testutil"
)

// flight is one transfer of a fleet and the terminal state it must reach.
type flight struct {
	chainID string
	raw     []byte
	hash    string
	want    string
}

// signer signs many txs per account in one block: the devnet's mempool counts pending
// sequences, as CometBFT's CheckTx state does.
type signer struct {
	w    *wallet
	num  map[string]uint64
	next map[string]uint64
}

func (s *signer) sign(chainID string, id int, m proto.Message) []byte {
	t := s.w.t
	pk := s.w.tn.key(t, chainID, id)
	addr := s.w.tn.ln.Address(chainID, pk)
	k := chainID + "/" + addr
	if _, ok := s.num[k]; !ok {
		s.num[k], s.next[k] = s.w.account(chainID, addr)
	}
	b := txcodec.Builder{ChainID: chainID, Msgs: []proto.Message{m}, GasLimit: 1_000_000, SignMode: txcodec.SignModeDirect,
		Signers: []txcodec.Signer{{Key: pk, AccountNumber: s.num[k], Sequence: s.next[k]}}}
	raw, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	s.next[k]++
	return raw
}

// fleet builds count transfers: of every five, three IBC transfers minimove → L1, one to an
// invalid receiver (error acknowledgement, refund) and one OPinit deposit L1 → minimove, signed
// by the devnet's four funded users of each chain.
func (n *trackNet) fleet(count int) []flight {
	s := &signer{w: n.wallet, num: map[string]uint64{}, next: map[string]uint64{}}
	ch := n.channel(moveID, l1ID)
	timeout := uint64(genesisTime.Add(24 * time.Hour).UnixNano())
	out := make([]flight, 0, count)
	for i := 0; i < count; i++ {
		user := i % 4
		var f flight
		switch i % 5 {
		case 0, 1, 2, 3:
			recv, want := n.tn.addr(n.t, l1ID, recipientBase+20+i%7), track.StateCompletedSuccess
			if i%5 == 3 {
				recv, want = "not-an-address", track.StateCompletedError
			}
			m := &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: ch, Token: &basev1beta1.Coin{Denom: "uusdc", Amount: fmt.Sprint(1000 + i)},
				Sender: n.tn.addr(n.t, moveID, user), Receiver: recv, TimeoutHeight: &clientv1.Height{}, TimeoutTimestamp: timeout}
			f = flight{chainID: moveID, raw: s.sign(moveID, user, m), want: want}
		case 4:
			m := &ophostv1.MsgInitiateTokenDeposit{Sender: n.tn.addr(n.t, l1ID, user), BridgeId: 2, To: n.tn.addr(n.t, moveID, recipientBase+30+i%5),
				Amount: &basev1beta1.Coin{Denom: "uinit", Amount: fmt.Sprint(1000 + i)}}
			f = flight{chainID: l1ID, raw: s.sign(l1ID, user, m), want: track.StateCompletedSuccess}
		}
		f.hash = track.TxHash(f.raw)
		out = append(out, f)
	}
	return out
}

func (n *trackNet) broadcastAll(fs []flight) {
	for _, f := range fs {
		n.broadcast(f.chainID, f.raw)
	}
}

// states reads every flight's current state from the store.
func states(t *testing.T, st *track.Store, fs []flight) map[string]int {
	out := map[string]int{}
	for _, f := range fs {
		tr, err := st.Get(context.Background(), f.chainID, f.hash)
		if err != nil {
			t.Fatalf("%s: %v", f.hash, err)
		}
		out[tr.State]++
	}
	return out
}

// settle steps the devnet every interval until every flight is terminal, then checks each
// reached the state it must.
func (n *trackNet) settle(st *track.Store, fs []flight, interval, limit time.Duration) {
	t := n.t
	deadline := time.Now().Add(limit)
	for {
		done := 0
		for _, f := range fs {
			tr, err := st.Get(n.ctx, f.chainID, f.hash)
			if err != nil {
				t.Fatal(err)
			}
			if track.Terminal(tr.State) {
				done++
			}
		}
		if done == len(fs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d terminal after %s: %v", done, len(fs), limit, states(t, st, fs))
		}
		if err := n.tn.step(n.ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(interval)
	}
	for _, f := range fs {
		tr, _ := st.Get(n.ctx, f.chainID, f.hash)
		var s track.StatusResponse
		if err := json.Unmarshal(tr.Doc, &s); err != nil {
			t.Fatal(err)
		}
		if s.State != f.want || len(s.TransferSequence) != 1 {
			t.Fatalf("%s on %s: %s with %d hops, want %s: %s", f.hash, f.chainID, s.State, len(s.TransferSequence), f.want, tr.Doc)
		}
	}
}

// trackerChild is the tracker process TestTrackRestart kills: TestMain runs it instead of the
// tests when ROLLGATE_TRACK_CHILD_REGISTRY is set, and it runs until killed.
func trackerChild(dir string) int {
	ctx := context.Background()
	reg, err := registry.Load(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracker child:", err)
		return 2
	}
	live := registry.NewLive(reg)
	if err := live.Refresh(ctx, &registry.RESTSource{}); err != nil {
		fmt.Fprintln(os.Stderr, "tracker child:", err)
		return 2
	}
	st, err := track.OpenStore(ctx, os.Getenv("ROLLGATE_TRACK_CHILD_DSN"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracker child:", err)
		return 2
	}
	// Warnings and errors go to the test's output (a stuck child says why); debug with
	// ROLLGATE_TRACK_CHILD_LOG=debug.
	level := slog.LevelWarn
	_ = level.UnmarshalText([]byte(os.Getenv("ROLLGATE_TRACK_CHILD_LOG")))
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("owner", os.Getenv("ROLLGATE_TRACK_CHILD_OWNER"))
	tr := track.New(st, live, track.Config{Owner: os.Getenv("ROLLGATE_TRACK_CHILD_OWNER"), Poll: 20 * time.Millisecond, Lease: 2 * time.Second, Log: log})
	if err := tr.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "tracker child:", err)
		return 1
	}
	return 0
}

func startChild(t *testing.T, registryDir, dsn, owner string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "ROLLGATE_TRACK_CHILD_REGISTRY="+registryDir, "ROLLGATE_TRACK_CHILD_DSN="+dsn, "ROLLGATE_TRACK_CHILD_OWNER="+owner)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd
}

// TestTrackRestart SIGKILLs the tracker process while 100 transfers are in flight, lets the
// chains move on without it, starts it again on the same store, and checks every transfer
// reaches its correct terminal state.
func TestTrackRestart(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "track.db")
	n := startTrackNet(t, dsn)
	n.t = t
	fs := n.fleet(100)
	// Registered through a router replica that does not track (its leases lapse at once), so
	// the tracker process takes them over as it would after that replica died.
	front := track.New(n.st, registry.NewLive(n.reg), track.Config{Lease: time.Nanosecond})
	for _, f := range fs {
		if _, err := front.Track(n.ctx, f.chainID, f.hash); err != nil {
			t.Fatal(err)
		}
	}
	first := startChild(t, n.tn.dir, dsn, "first")
	n.broadcastAll(fs)
	if err := n.tn.step(n.ctx); err != nil { // the sends land
		t.Fatal(err)
	}
	// Wait until the first process saw them all in flight (pending, nothing terminal yet).
	deadline := time.Now().Add(30 * time.Second)
	for states(t, n.st, fs)[track.StatePending] < len(fs) {
		if time.Now().After(deadline) {
			t.Fatalf("the first tracker did not pick the transfers up: %v", states(t, n.st, fs))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := n.tn.step(n.ctx); err != nil { // the packets are received, the deposits finalized
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if err := first.Process.Kill(); err != nil { // SIGKILL: no lease released, nothing flushed
		t.Fatal(err)
	}
	_, _ = first.Process.Wait()
	before := states(t, n.st, fs)
	t.Logf("killed with %v", before)
	if before[track.StatePending]+before[track.StatePendingError] == 0 {
		t.Fatalf("nothing was in flight at the kill: %v", before)
	}
	// The chains move on while no tracker runs: acks land.
	for i := 0; i < 3; i++ {
		if err := n.tn.step(n.ctx); err != nil {
			t.Fatal(err)
		}
	}
	startChild(t, n.tn.dir, dsn, "second")
	n.settle(n.st, fs, 200*time.Millisecond, 60*time.Second)
	t.Logf("after the restart: %v", states(t, n.st, fs))
}

// TestTrackReplicas runs two trackers on one PostgreSQL: every transfer reaches its terminal
// state and each is processed (its status written) by exactly one replica.
func TestTrackReplicas(t *testing.T) {
	dsn := testutil.PostgresDSN(t)
	n := startTrackNet(t, dsn)
	n.t = t
	var mu sync.Mutex
	writers := map[string]map[string]bool{}
	var reps []*track.Tracker
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, owner := range []string{"r1", "r2"} {
		st, err := track.OpenStore(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		tr := track.New(st, registry.NewLive(n.reg), track.Config{Owner: owner, Poll: 20 * time.Millisecond, ClaimBatch: 10,
			Observe: func(_, hash, _ string) {
				mu.Lock()
				defer mu.Unlock()
				if writers[hash] == nil {
					writers[hash] = map[string]bool{}
				}
				writers[hash][owner] = true
			}})
		reps = append(reps, tr)
		wg.Add(1)
		go func() { defer wg.Done(); _ = tr.Run(ctx) }()
	}
	defer func() { cancel(); wg.Wait() }()
	fs := n.fleet(100)
	for i, f := range fs {
		if _, err := reps[i%2].Track(n.ctx, f.chainID, f.hash); err != nil { // half the wallets reach each replica
			t.Fatal(err)
		}
	}
	n.broadcastAll(fs)
	n.settle(n.st, fs, 100*time.Millisecond, 60*time.Second)
	mu.Lock()
	defer mu.Unlock()
	per := map[string]int{}
	for _, f := range fs {
		if len(writers[f.hash]) != 1 {
			t.Errorf("%s written by %v", f.hash, writers[f.hash])
		}
		for o := range writers[f.hash] {
			per[o]++
		}
	}
	t.Logf("transfers processed per replica: %v; stats r1 %+v, r2 %+v", per, reps[0].Stats(), reps[1].Stats())
	if per["r1"] == 0 || per["r2"] == 0 {
		t.Errorf("one replica did all the work: %v", per)
	}
}
