package simtest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// The accounts of the captured minimove and miniwasm chains (see the fixtures' README): the
// validator and four funded users.
var (
	AccVal = MustHex("f39fd6e51aad88f6f4ce6ab8827279cfffb92266")
	Acc1   = MustHex("8c8d35429f74ec245f8ef2f4fd1e551cff97d650")
	Acc2   = MustHex("98e503f35d0a019cb0a251ad243a4ccfcf371f46")
	Acc3   = MustHex("cb9fa1ea9b8a3bf422a8639f23df77ea66020ec2")
	Acc4   = MustHex("efdd9ca0e063bd6974d8fa944a747620fe7032e3")
)

// FundFixtureAccounts sets the captured chains' genesis balances.
func FundFixtureAccounts(b Balances) {
	e12, e9, e15 := big.NewInt(1_000_000_000_000), big.NewInt(1_000_000_000), big.NewInt(1_000_000_000_000_000)
	b.Set(AccVal, "umin", e15)
	for _, a := range [][]byte{Acc1, Acc2, Acc3} {
		b.Set(a, "umin", e12)
		b.Set(a, "uusdc", e9)
	}
	b.Set(Acc4, "umin", e9)
}

// MustHex decodes a hex constant of a test; it panics on a typo.
func MustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// MustBech decodes a bech32 address of a fixture or a generated message.
func MustBech(t testing.TB, prefix, s string) []byte {
	t.Helper()
	b, err := address.FromBech32(prefix, s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return b
}

// Accounts are sim.Accounts over raw addresses.
func Accounts(prefix string, addrs ...[]byte) []sim.Account {
	var out []sim.Account
	for _, a := range addrs {
		b, _ := address.Bech32(prefix, a)
		out = append(out, sim.Account{Addr: a, Bech32: b})
	}
	return out
}

// Coin is a coin as JSON carries it.
type Coin struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

// Coins converts JSON coins; an amount that is not an integer fails the test.
func Coins(t testing.TB, in []Coin) []sim.Coin {
	t.Helper()
	var out []sim.Coin
	for _, c := range in {
		v, ok := new(big.Int).SetString(c.Amount, 10)
		if !ok {
			t.Fatalf("amount %q", c.Amount)
		}
		out = append(out, sim.Coin{Denom: c.Denom, Amount: v})
	}
	return out
}

// ReadJSON decodes a fixture file into v; it reports false when the file does not exist and
// fails the test when it is not JSON.
func ReadJSON(t testing.TB, path string, v any) bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return true
}

// Pad4 is a height as the capture names its files.
func Pad4(h int) string { s := "0000" + strconv.Itoa(h); return s[len(s)-4:] }

// FixtureMsg is a tx message of the capture: the fields the replay itself needs, and the
// whole message for the module's own decoding.
type FixtureMsg struct {
	Type         string          `json:"@type"`
	Sender       string          `json:"sender"`
	From         string          `json:"from_address"`
	To           string          `json:"to_address"`
	Amount       json.RawMessage `json:"amount"` // coins for a MsgSend, one coin for tokenfactory
	FunctionName string          `json:"function_name"`
	Raw          json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw message besides the common fields.
func (m *FixtureMsg) UnmarshalJSON(b []byte) error {
	type plain FixtureMsg
	if err := json.Unmarshal(b, (*plain)(m)); err != nil {
		return err
	}
	m.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// FixtureTx is a tx as the REST txs-by-block response carries it.
type FixtureTx struct {
	Body struct {
		Messages []FixtureMsg `json:"messages"`
	} `json:"body"`
	AuthInfo struct {
		Fee struct {
			Amount []Coin `json:"amount"`
		} `json:"fee"`
	} `json:"auth_info"`
}

// TxResult is a tx result of /block_results.
type TxResult struct {
	Code      uint32      `json:"code"`
	Data      []byte      `json:"data"`
	Codespace string      `json:"codespace"`
	Log       string      `json:"log"`
	Events    []sim.Event `json:"events"`
}

// FixtureBlock is one captured block: its time, its txs and their results.
type FixtureBlock struct {
	Time    time.Time
	Txs     []FixtureTx
	Results []TxResult
}

// LoadBlock reads block h of a capture; false means the capture has no such height.
func LoadBlock(t testing.TB, dir string, h int) (FixtureBlock, bool) {
	t.Helper()
	var br struct {
		Result struct {
			TxsResults []TxResult `json:"txs_results"`
		} `json:"result"`
	}
	if !ReadJSON(t, filepath.Join(dir, "comet", "block_results", Pad4(h)+".json"), &br) {
		return FixtureBlock{}, false
	}
	var blk struct {
		Result struct {
			Block struct {
				Header struct {
					Time time.Time `json:"time"`
				} `json:"header"`
			} `json:"block"`
		} `json:"result"`
	}
	if !ReadJSON(t, filepath.Join(dir, "comet", "block", Pad4(h)+".json"), &blk) {
		t.Fatalf("height %d: no comet/block", h)
	}
	var tb struct {
		Txs []FixtureTx `json:"txs"`
	}
	if !ReadJSON(t, filepath.Join(dir, "rest", "txs_block", Pad4(h)+".json"), &tb) {
		t.Fatalf("height %d: no rest/txs_block", h)
	}
	if len(tb.Txs) != len(br.Result.TxsResults) {
		t.Fatalf("height %d: %d txs, %d results", h, len(tb.Txs), len(br.Result.TxsResults))
	}
	return FixtureBlock{Time: blk.Result.Block.Header.Time, Txs: tb.Txs, Results: br.Result.TxsResults}, true
}

// SplitEvents splits a tx's events into the tx-level ones and those of each message (by
// msg_index, with the attribute removed), dropping the events the engine, not the module,
// emits: the ante `tx` events and baseapp's `message{action}`.
func SplitEvents(evs []sim.Event) (txLevel []sim.Event, perMsg map[string][]sim.Event) {
	perMsg = map[string][]sim.Event{}
	for _, e := range evs {
		ev := sim.Event{Type: e.Type}
		idx, action := "", false
		for _, a := range e.Attributes {
			if a.Key == "msg_index" {
				idx = a.Value
				continue
			}
			if a.Key == "action" && e.Type == "message" {
				action = true
			}
			ev.Attributes = append(ev.Attributes, a)
		}
		switch {
		case e.Type == "tx", action:
		case idx == "":
			txLevel = append(txLevel, ev)
		default:
			perMsg[idx] = append(perMsg[idx], ev)
		}
	}
	return txLevel, perMsg
}

// MsgResponses returns the Any values of a TxMsgData (field 2: msg_responses; Any field 2:
// value).
func MsgResponses(t testing.TB, data []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			t.Fatal("bad TxMsgData")
		}
		data = data[n:]
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, data)
			data = data[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(data)
		data = data[n:]
		if num != 2 {
			continue
		}
		var value []byte
		for len(v) > 0 {
			an, at, m := protowire.ConsumeTag(v)
			v = v[m:]
			b, m := protowire.ConsumeBytes(v)
			v = v[m:]
			if an == 2 && at == protowire.BytesType {
				value = b
			}
		}
		out = append(out, value)
	}
	return out
}

const typeMsgSend = "/cosmos.bank.v1beta1.MsgSend"

// Replay runs a captured chain through a module on Chain: from height 2 on, each tx pays
// its fee through Chain's flavor, then each message runs (bank sends on Chain, the rest
// through Handle), and every event, message response and failure is compared with the
// capture. A tx the chain failed has its state rolled back.
type Replay struct {
	Dir          string // the capture
	Chain        *Chain
	FeeCollector []byte
	// BlockTime sets Chain.Now to each captured block's time.
	BlockTime bool
	// Handle runs one message that is not a bank send.
	Handle func(msg FixtureMsg) error
}

// Dispatch is a Replay.Handle for a module: it decodes each message into the module's own
// fixture type M, converts it with toProto and runs the module's handler for its type URL
// on the chain.
func Dispatch[M any](t testing.TB, f *Chain, handlers map[string]sim.Handler, toProto func(M) proto.Message) func(FixtureMsg) error {
	return func(msg FixtureMsg) error {
		t.Helper()
		var m M
		if err := json.Unmarshal(msg.Raw, &m); err != nil {
			t.Fatal(err)
		}
		return handlers[msg.Type](f, toProto(m))
	}
}

// Run replays the capture; it returns how many messages ran and were compared.
func (r Replay) Run(t testing.TB) int {
	t.Helper()
	f := r.Chain
	compared := 0
	for h := 2; ; h++ {
		blk, ok := LoadBlock(t, r.Dir, h)
		if !ok {
			break
		}
		f.BlockHeight = int64(h)
		if r.BlockTime {
			f.Now = blk.Time
		}
		for i, tx := range blk.Txs {
			res := blk.Results[i]
			wantTx, wantMsgs := SplitEvents(res.Events)
			kv, bal := f.Snapshot()
			// Fee payment through the flavor (tx-level events).
			f.Events = nil
			if fee := Coins(t, tx.AuthInfo.Fee.Amount); len(fee) > 0 {
				payer := MustBech(t, f.Prefix, tx.Body.Messages[0].Sender+tx.Body.Messages[0].From)
				_ = f.Send(payer, r.FeeCollector, fee)
			}
			if res.Code == 0 || len(wantTx) > 0 {
				if diff := cmp.Diff(wantTx, f.Events); diff != "" {
					t.Errorf("h%d tx%d fee events (-want +got):\n%s", h, i, diff)
				}
			}
			var failed error
			for j, msg := range tx.Body.Messages {
				f.Events, f.Response = nil, nil
				var err error
				if msg.Type == typeMsgSend {
					if res.Code != 0 {
						failed = errors.New("bank failure (engine)")
						break
					}
					var amt []Coin
					_ = json.Unmarshal(msg.Amount, &amt)
					err = f.Send(MustBech(t, f.Prefix, msg.From), MustBech(t, f.Prefix, msg.To), Coins(t, amt))
				} else {
					err = r.Handle(msg)
				}
				if err != nil {
					failed = err
					break
				}
				compared++
				if f.Response != nil {
					got, _ := proto.MarshalOptions{Deterministic: true}.Marshal(f.Response)
					if want := MsgResponses(t, res.Data); j >= len(want) || !bytes.Equal(want[j], got) {
						t.Errorf("h%d tx%d msg%d response %x, chain %x", h, i, j, got, want)
					}
				}
				if diff := cmp.Diff(wantMsgs[strconv.Itoa(j)], f.Events); diff != "" {
					t.Errorf("h%d tx%d msg%d %s %s (-want +got):\n%s", h, i, j, msg.Type, msg.FunctionName, diff)
				}
			}
			switch {
			case res.Code == 0 && failed != nil:
				t.Errorf("h%d tx%d: unexpected failure %v", h, i, failed)
			case res.Code != 0 && failed == nil:
				t.Errorf("h%d tx%d: succeeded, the chain failed with %q", h, i, res.Log)
			case res.Code != 0:
				var ce *sim.CodedError
				if errors.As(failed, &ce) && (ce.Code != res.Code || ce.Codespace != res.Codespace || !strings.HasSuffix(res.Log, ": "+ce.Log)) {
					t.Errorf("h%d tx%d: error %s/%d %q, chain %s/%d %q", h, i, ce.Codespace, ce.Code, ce.Log, res.Codespace, res.Code, res.Log)
				}
				f.Restore(kv, bal)
			}
		}
		f.Commit()
	}
	return compared
}

// ReplayQueries asks mux every GET the capture's index.jsonl recorded whose URL match
// accepts, with the recorded headers, and compares status and body byte for byte (after
// normalize, when set). It returns how many were compared.
func ReplayQueries(t testing.TB, dir string, mux http.Handler, match func(url string) bool, normalize func(file string, want, got []byte) ([]byte, []byte)) int {
	t.Helper()
	idx, err := os.ReadFile(filepath.Join(dir, "index.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range bytes.Split(idx, []byte("\n")) {
		var e struct {
			File    string            `json:"file"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"request_headers"`
			Status  int               `json:"status"`
		}
		if len(line) == 0 || json.Unmarshal(line, &e) != nil || !match(e.URL) {
			continue
		}
		u, err := url.Parse(e.URL)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, u.RequestURI(), nil)
		for k, v := range e.Headers {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		want, err := os.ReadFile(filepath.Join(dir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		got := rec.Body.Bytes()
		if normalize != nil {
			want, got = normalize(e.File, want, got)
		}
		if rec.Code != e.Status || !bytes.Equal(got, want) {
			t.Errorf("%s: status %d (want %d)\n got %s\nwant %s", e.File, rec.Code, e.Status, got, want)
		}
		n++
	}
	return n
}

// Twins draws a module's traffic from two generators seeded alike, to prove it a pure
// function of the seed and the state.
type Twins struct{ a, b *rand.Rand }

// NewTwins seeds both generators with the same PCG seed.
func NewTwins(seed1, seed2 uint64) *Twins {
	return &Twins{a: rand.New(rand.NewPCG(seed1, seed2)), b: rand.New(rand.NewPCG(seed1, seed2))}
}

// Traffic returns the module's intents for the state, failing the test when the twin draw
// differs or when a message is not from the intent's signer.
func (tw *Twins) Traffic(t testing.TB, m sim.Module, q sim.Query, accs []sim.Account) []sim.Intent {
	t.Helper()
	a, b := m.Traffic(tw.a, q, accs), m.Traffic(tw.b, q, accs)
	if len(a) != len(b) {
		t.Fatalf("same seed, %d vs %d intents", len(a), len(b))
	}
	for i := range a {
		if a[i].Signer != b[i].Signer || len(a[i].Msgs) != len(b[i].Msgs) {
			t.Fatalf("intent %d differs", i)
		}
		for j := range a[i].Msgs {
			if !proto.Equal(a[i].Msgs[j], b[i].Msgs[j]) {
				t.Fatalf("intent %d msg %d differs", i, j)
			}
		}
	}
	for _, in := range a {
		for _, msg := range in.Msgs {
			if got := MsgSender(msg); got != accs[in.Signer].Bech32 {
				t.Fatalf("intent signed by %s carries a message from %s", accs[in.Signer].Bech32, got)
			}
		}
	}
	return a
}

// MsgSender is the signer field of the messages the traffic generators build.
func MsgSender(m proto.Message) string {
	switch x := m.(type) {
	case interface{ GetFromAddress() string }:
		return x.GetFromAddress()
	case interface{ GetSender() string }:
		return x.GetSender()
	}
	return ""
}
