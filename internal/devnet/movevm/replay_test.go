package movevm

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet/sim"
	"github.com/rollgate/rollgate/internal/devnet/sim/simtest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// Fixture accounts (minimove README).
var (
	accVal = mustHex("f39fd6e51aad88f6f4ce6ab8827279cfffb92266")
	acc1   = mustHex("8c8d35429f74ec245f8ef2f4fd1e551cff97d650")
	acc2   = mustHex("98e503f35d0a019cb0a251ad243a4ccfcf371f46")
	acc3   = mustHex("cb9fa1ea9b8a3bf422a8639f23df77ea66020ec2")
	acc4   = mustHex("efdd9ca0e063bd6974d8fa944a747620fe7032e3")
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

type fxEvent struct {
	Type       string          `json:"type"`
	Attributes []sim.Attribute `json:"attributes"`
}

type fxTxResult struct {
	Code      uint32    `json:"code"`
	Codespace string    `json:"codespace"`
	Log       string    `json:"log"`
	Events    []fxEvent `json:"events"`
}

type fxMsg struct {
	Type         string            `json:"@type"`
	Sender       string            `json:"sender"`
	ModuleAddr   string            `json:"module_address"`
	ModuleName   string            `json:"module_name"`
	FunctionName string            `json:"function_name"`
	TypeArgs     []string          `json:"type_args"`
	Args         []json.RawMessage `json:"args"`
	From         string            `json:"from_address"`
	To           string            `json:"to_address"`
	Amount       []struct {
		Denom  string `json:"denom"`
		Amount string `json:"amount"`
	} `json:"amount"`
}

type fxTx struct {
	Body struct {
		Messages []fxMsg `json:"messages"`
	} `json:"body"`
	AuthInfo struct {
		Fee struct {
			Amount []struct {
				Denom  string `json:"denom"`
				Amount string `json:"amount"`
			} `json:"amount"`
		} `json:"fee"`
	} `json:"auth_info"`
}

type fxBlock struct {
	txs     []fxTx
	results []fxTxResult
}

func loadBlock(t *testing.T, dir string, h int) (fxBlock, bool) {
	t.Helper()
	name := filepath.Join(dir, "comet", "block_results", pad4(h)+".json")
	raw, err := os.ReadFile(name)
	if err != nil {
		return fxBlock{}, false
	}
	var br struct {
		Result struct {
			TxsResults []fxTxResult `json:"txs_results"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &br); err != nil {
		t.Fatal(err)
	}
	raw, err = os.ReadFile(filepath.Join(dir, "rest", "txs_block", pad4(h)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tb struct {
		Txs []fxTx `json:"txs"`
	}
	if err := json.Unmarshal(raw, &tb); err != nil {
		t.Fatal(err)
	}
	if len(tb.Txs) != len(br.Result.TxsResults) {
		t.Fatalf("height %d: %d txs, %d results", h, len(tb.Txs), len(br.Result.TxsResults))
	}
	return fxBlock{txs: tb.Txs, results: br.Result.TxsResults}, true
}

func pad4(h int) string { s := "0000" + itoa(h); return s[len(s)-4:] }
func itoa(i int) string { return big.NewInt(int64(i)).String() }

// msgEvents splits a tx's events into the tx-level ones and those of each message (by
// msg_index, with the attribute removed), dropping the baseapp `message{action}` event and
// the ante `tx` events that the engine, not the module, emits.
func msgEvents(evs []fxEvent) (txLevel []sim.Event, perMsg map[string][]sim.Event) {
	perMsg = map[string][]sim.Event{}
	for _, e := range evs {
		ev := sim.Event{Type: e.Type}
		idx := ""
		action := false
		for _, a := range e.Attributes {
			switch a.Key {
			case "msg_index":
				idx = a.Value
				continue
			case "action":
				action = true
			}
			ev.Attributes = append(ev.Attributes, a)
		}
		switch {
		case e.Type == "tx":
		case e.Type == "message" && action:
		case idx == "":
			txLevel = append(txLevel, ev)
		default:
			perMsg[idx] = append(perMsg[idx], ev)
		}
	}
	return txLevel, perMsg
}

func coinsOf(t *testing.T, in []struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}) []sim.Coin {
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

func toProto(t *testing.T, m fxMsg) proto.Message {
	t.Helper()
	switch m.Type {
	case TypeMsgExecute:
		msg := &movev1.MsgExecute{Sender: m.Sender, ModuleAddress: m.ModuleAddr, ModuleName: m.ModuleName, FunctionName: m.FunctionName, TypeArgs: m.TypeArgs}
		for _, a := range m.Args {
			var s string
			if err := json.Unmarshal(a, &s); err != nil {
				t.Fatal(err)
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				t.Fatal(err)
			}
			msg.Args = append(msg.Args, b)
		}
		return msg
	case TypeMsgExecuteJSON:
		msg := &movev1.MsgExecuteJSON{Sender: m.Sender, ModuleAddress: m.ModuleAddr, ModuleName: m.ModuleName, FunctionName: m.FunctionName, TypeArgs: m.TypeArgs}
		for _, a := range m.Args {
			var s string
			if err := json.Unmarshal(a, &s); err != nil {
				t.Fatal(err)
			}
			msg.Args = append(msg.Args, s)
		}
		return msg
	}
	return nil
}

func genesis(t *testing.T) (*Module, *simtest.Chain) {
	t.Helper()
	m := New(WithGenesisCoins("umin", "uusdc"))
	f := newFakeChain()
	// The flavor renders before the engine applies the balance change; a positive balance
	// means the account already has its primary store.
	m.BankFlavor().StoreExists = func(owner []byte, denom string) bool { return f.Balance(owner, denom).Sign() > 0 }
	f.Flavor = m.BankFlavor()
	e12, e9, e15 := big.NewInt(1_000_000_000_000), big.NewInt(1_000_000_000), big.NewInt(1_000_000_000_000_000)
	f.Bal.Set(accVal, "umin", e15)
	for _, a := range [][]byte{acc1, acc2, acc3} {
		f.Bal.Set(a, "umin", new(big.Int).Set(e12))
		f.Bal.Set(a, "uusdc", new(big.Int).Set(e9))
	}
	f.Bal.Set(acc4, "umin", new(big.Int).Set(e9))
	if err := m.InitGenesis(f); err != nil {
		t.Fatal(err)
	}
	f.Commit()
	return m, f
}

// replay runs the fixture chain through the module (Move calls) and the flavor (bank sends
// and fees), comparing every event with the capture; it returns the chain for query tests.
func replay(t *testing.T) (*Module, *simtest.Chain) {
	dir := testutil.Fixture(t, "minimove")
	m, f := genesis(t)
	feeCollector := ModuleAccount("fee_collector")
	handlers := m.Handlers()
	for h := 2; ; h++ {
		blk, ok := loadBlock(t, dir, h)
		if !ok {
			break
		}
		f.BlockHeight = int64(h)
		for i, tx := range blk.txs {
			res := blk.results[i]
			wantTx, wantMsgs := msgEvents(res.Events)
			snapKV, snapBal := f.Snapshot()
			// Fee payment through the flavor (tx-level events).
			f.Events = nil
			if fee := coinsOf(t, tx.AuthInfo.Fee.Amount); len(fee) > 0 {
				payer := mustBech(t, tx.Body.Messages[0].Sender+tx.Body.Messages[0].From)
				_ = f.Send(payer, feeCollector, fee)
			}
			if res.Code == 0 || len(wantTx) > 0 {
				if diff := cmp.Diff(wantTx, nonNil(f.Events)); diff != "" {
					t.Errorf("h%d tx%d fee events (-want +got):\n%s", h, i, diff)
				}
			}
			var failed error
			for j, msg := range tx.Body.Messages {
				f.Events = nil
				var err error
				if msg.Type == "/cosmos.bank.v1beta1.MsgSend" {
					if res.Code != 0 {
						failed = errors.New("bank failure (engine)")
						break
					}
					err = f.Send(mustBech(t, msg.From), mustBech(t, msg.To), coinsOf(t, msg.Amount))
				} else {
					err = handlers[msg.Type](f, toProto(t, msg))
				}
				if err != nil {
					failed = err
					break
				}
				if diff := cmp.Diff(wantMsgs[itoa(j)], nonNil(f.Events)); diff != "" {
					t.Errorf("h%d tx%d msg%d %s (-want +got):\n%s", h, i, j, msg.FunctionName, diff)
				}
			}
			switch {
			case res.Code == 0 && failed != nil:
				t.Errorf("h%d tx%d: unexpected failure %v", h, i, failed)
			case res.Code != 0 && failed == nil:
				t.Errorf("h%d tx%d: succeeded, the chain failed with %q", h, i, res.Log)
			case res.Code != 0:
				var ce *sim.CodedError
				if errors.As(failed, &ce) {
					if ce.Code != res.Code || ce.Codespace != res.Codespace || !strings.HasSuffix(res.Log, ": "+ce.Log) {
						t.Errorf("h%d tx%d: error %s/%d %q, chain %s/%d %q", h, i, ce.Codespace, ce.Code, ce.Log, res.Codespace, res.Code, res.Log)
					}
				}
				f.Restore(snapKV, snapBal)
			}
		}
		f.Commit()
	}
	return m, f
}

func nonNil(e []sim.Event) []sim.Event {
	if e == nil {
		return []sim.Event(nil)
	}
	return e
}

func mustBech(t *testing.T, s string) []byte {
	t.Helper()
	b, err := address.FromBech32("init", s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return b
}

func TestReplayFixtureEvents(t *testing.T) {
	replay(t)
}

// TestResourceQueries asks every Move query the fixture recorded against the replayed chain
// and compares the bytes (collection table handles aside: they come from the tx context).
func TestResourceQueries(t *testing.T) {
	m, f := replay(t)
	dir := testutil.Fixture(t, "minimove")
	mux := http.NewServeMux()
	m.Routes(mux, f.QueryAt)
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
		if len(line) == 0 || json.Unmarshal(line, &e) != nil || !strings.Contains(e.URL, "/initia/move/v1/") {
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
		if strings.Contains(e.File, "collection_") {
			want = normalizeHandles(t, want)
			got = normalizeHandles(t, got)
		}
		if rec.Code != e.Status || !bytes.Equal(got, want) {
			t.Errorf("%s: status %d (want %d)\n got %s\nwant %s", e.File, rec.Code, e.Status, got, want)
		}
		n++
	}
	if n < 40 {
		t.Fatalf("only %d Move queries compared", n)
	}
}

// normalizeHandles zeroes the collection's table handle in move_resource and raw_bytes.
func normalizeHandles(t *testing.T, body []byte) []byte {
	t.Helper()
	var one struct {
		Resource resource `json:"resource"`
	}
	var all struct {
		Resources  []resource     `json:"resources"`
		Pagination map[string]any `json:"pagination"`
	}
	fix := func(r *resource) {
		if r.StructTag != "0x1::collection::Collection" {
			return
		}
		var mr struct {
			Data struct {
				Nfts struct {
					Handle string `json:"handle"`
				} `json:"nfts"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(r.MoveResource), &mr); err != nil {
			t.Fatal(err)
		}
		h := mr.Data.Nfts.Handle
		r.MoveResource = strings.Replace(r.MoveResource, h, "0xHANDLE", 1)
		raw, _ := base64.StdEncoding.DecodeString(r.RawBytes)
		ha, _ := ParseAddr(h)
		raw = bytes.Replace(raw, ha[:], make([]byte, 32), 1)
		r.RawBytes = base64.StdEncoding.EncodeToString(raw)
	}
	if json.Unmarshal(body, &all) == nil && all.Resources != nil {
		for i := range all.Resources {
			fix(&all.Resources[i])
		}
		return marshalNoEscape(all)
	}
	if json.Unmarshal(body, &one) == nil && one.Resource.StructTag != "" {
		fix(&one.Resource)
		return marshalNoEscape(one)
	}
	return body
}
