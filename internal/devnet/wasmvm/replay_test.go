package wasmvm

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
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	tokenfactoryv1 "github.com/rollgate/rollgate/internal/chain/protos/miniwasm/tokenfactory/v1"
	"github.com/rollgate/rollgate/internal/devnet/sim"
	"github.com/rollgate/rollgate/internal/devnet/sim/simtest"
	"github.com/rollgate/rollgate/internal/testutil"
)

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

type fxCoin struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

type fxMsg struct {
	Type          string          `json:"@type"`
	Sender        string          `json:"sender"`
	From          string          `json:"from_address"`
	To            string          `json:"to_address"`
	Amount        json.RawMessage `json:"amount"`
	WasmByteCode  []byte          `json:"wasm_byte_code"`
	Admin         string          `json:"admin"`
	CodeID        string          `json:"code_id"`
	Label         string          `json:"label"`
	Msg           json.RawMessage `json:"msg"`
	Funds         []fxCoin        `json:"funds"`
	Contract      string          `json:"contract"`
	Subdenom      string          `json:"subdenom"`
	MintToAddress string          `json:"mint_to_address"`
}

type fxTx struct {
	Body struct {
		Messages []fxMsg `json:"messages"`
	} `json:"body"`
	AuthInfo struct {
		Fee struct {
			Amount []fxCoin `json:"amount"`
		} `json:"fee"`
	} `json:"auth_info"`
}

type fxTxResult struct {
	Code      uint32 `json:"code"`
	Data      []byte `json:"data"`
	Codespace string `json:"codespace"`
	Log       string `json:"log"`
	Events    []struct {
		Type       string          `json:"type"`
		Attributes []sim.Attribute `json:"attributes"`
	} `json:"events"`
}

func readJSON(t *testing.T, path string, v any) bool {
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

func pad4(h int) string { s := "0000" + big.NewInt(int64(h)).String(); return s[len(s)-4:] }

func coins(t *testing.T, in []fxCoin) []sim.Coin {
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

func protoCoins(in []fxCoin) []*basev1beta1.Coin {
	var out []*basev1beta1.Coin
	for _, c := range in {
		out = append(out, &basev1beta1.Coin{Denom: c.Denom, Amount: c.Amount})
	}
	return out
}

func toProto(t *testing.T, m fxMsg) proto.Message {
	t.Helper()
	var one fxCoin
	switch m.Type {
	case TypeMsgStoreCode:
		return &wasmv1.MsgStoreCode{Sender: m.Sender, WasmByteCode: m.WasmByteCode}
	case TypeMsgInstantiateContract:
		var id uint64
		if err := json.Unmarshal([]byte(m.CodeID), &id); err != nil {
			t.Fatal(err)
		}
		return &wasmv1.MsgInstantiateContract{Sender: m.Sender, Admin: m.Admin, CodeId: id, Label: m.Label, Msg: m.Msg, Funds: protoCoins(m.Funds)}
	case TypeMsgExecuteContract:
		return &wasmv1.MsgExecuteContract{Sender: m.Sender, Contract: m.Contract, Msg: m.Msg, Funds: protoCoins(m.Funds)}
	case TypeMsgCreateDenom:
		return &tokenfactoryv1.MsgCreateDenom{Sender: m.Sender, Subdenom: m.Subdenom}
	case TypeMsgMint:
		_ = json.Unmarshal(m.Amount, &one)
		return &tokenfactoryv1.MsgMint{Sender: m.Sender, Amount: &basev1beta1.Coin{Denom: one.Denom, Amount: one.Amount}, MintToAddress: m.MintToAddress}
	case TypeMsgBurn:
		_ = json.Unmarshal(m.Amount, &one)
		return &tokenfactoryv1.MsgBurn{Sender: m.Sender, Amount: &basev1beta1.Coin{Denom: one.Denom, Amount: one.Amount}}
	}
	t.Fatalf("unexpected %s", m.Type)
	return nil
}

// split drops the engine's events (ante `tx`, baseapp `message{action}`) and groups the rest
// by msg_index (removing the attribute).
func split(res fxTxResult) (txLevel []sim.Event, perMsg map[string][]sim.Event) {
	perMsg = map[string][]sim.Event{}
	for _, e := range res.Events {
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

func mustBech(t *testing.T, s string) []byte {
	t.Helper()
	b, err := address.FromBech32("init", s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return b
}

func genesis(t *testing.T) (*Module, *simtest.Chain) {
	m := New()
	f := newFakeChain()
	f.Flavor = BankFlavor{}
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

// replay runs the captured miniwasm chain through the module and the plain bank flavor,
// comparing every event and failure with the capture.
func replay(t *testing.T) (*Module, *simtest.Chain) {
	dir := testutil.Fixture(t, "miniwasm")
	m, f := genesis(t)
	handlers := m.Handlers()
	feeCollector := ModuleAccount("fee_collector")
	compared := 0
	for h := 2; ; h++ {
		var br struct {
			Result struct {
				TxsResults []fxTxResult `json:"txs_results"`
			} `json:"result"`
		}
		if !readJSON(t, filepath.Join(dir, "comet", "block_results", pad4(h)+".json"), &br) {
			break
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
		readJSON(t, filepath.Join(dir, "comet", "block", pad4(h)+".json"), &blk)
		var tb struct {
			Txs []fxTx `json:"txs"`
		}
		readJSON(t, filepath.Join(dir, "rest", "txs_block", pad4(h)+".json"), &tb)
		f.BlockHeight, f.Now = int64(h), blk.Result.Block.Header.Time
		for i, tx := range tb.Txs {
			res := br.Result.TxsResults[i]
			wantTx, wantMsgs := split(res)
			kv, bal := f.Snapshot()
			f.Events = nil
			if fee := coins(t, tx.AuthInfo.Fee.Amount); len(fee) > 0 {
				payer := mustBech(t, tx.Body.Messages[0].Sender+tx.Body.Messages[0].From)
				_ = f.Send(payer, feeCollector, fee)
			}
			if res.Code == 0 {
				if diff := cmp.Diff(wantTx, f.Events); diff != "" {
					t.Errorf("h%d tx%d fee events (-want +got):\n%s", h, i, diff)
				}
			}
			var failed error
			for j, msg := range tx.Body.Messages {
				f.Events, f.Response = nil, nil
				var err error
				if msg.Type == "/cosmos.bank.v1beta1.MsgSend" {
					if res.Code != 0 {
						failed = errors.New("bank failure (engine)")
						break
					}
					var amt []fxCoin
					_ = json.Unmarshal(msg.Amount, &amt)
					err = f.Send(mustBech(t, msg.From), mustBech(t, msg.To), coins(t, amt))
				} else {
					err = handlers[msg.Type](f, toProto(t, msg))
				}
				if err != nil {
					failed = err
					break
				}
				compared++
				if f.Response != nil {
					got, _ := proto.MarshalOptions{Deterministic: true}.Marshal(f.Response)
					if want := msgResponses(t, res.Data); j >= len(want) || !bytes.Equal(want[j], got) {
						t.Errorf("h%d tx%d msg%d response %x, chain %x", h, i, j, got, want)
					}
				}
				if diff := cmp.Diff(wantMsgs[big.NewInt(int64(j)).String()], f.Events); diff != "" {
					t.Errorf("h%d tx%d msg%d %s (-want +got):\n%s", h, i, j, msg.Type, diff)
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
	if compared < 40 {
		t.Fatalf("only %d messages compared", compared)
	}
	return m, f
}

func TestReplayFixtureEvents(t *testing.T) { replay(t) }

// TestQueries replays every x/wasm and tokenfactory query of the capture against the
// replayed state and compares status and bytes.
func TestQueries(t *testing.T) {
	m, f := replay(t)
	dir := testutil.Fixture(t, "miniwasm")
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
		if len(line) == 0 || json.Unmarshal(line, &e) != nil ||
			!(strings.Contains(e.URL, "/cosmwasm/wasm/v1/") || strings.Contains(e.URL, "/miniwasm/tokenfactory/")) ||
			strings.Contains(e.URL, "%%%") { // rejected by net/http itself, before any handler
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
		if rec.Code != e.Status || !bytes.Equal(rec.Body.Bytes(), want) {
			t.Errorf("%s: status %d (want %d)\n got %s\nwant %s", e.File, rec.Code, e.Status, rec.Body.Bytes(), want)
		}
		n++
	}
	if n < 60 {
		t.Fatalf("only %d queries compared", n)
	}
}

func TestContractAddress(t *testing.T) {
	cases := []struct {
		code, inst uint64
		want       string
	}{
		{2, 1, "init1wug8sewp6cedgkmrmvhl3lf3tulagm9hnvy8p0rppz9yjw0g4wtq7947m6"},
		{1, 2, "init1suhgf5svhu4usrurvxzlgn54ksxmn8gljarjtxqnapv8kjnp4nrsept59e"},
		{1, 3, "init1yyca08xqdgvjz0psg56z67ejh9xms6l436u8y58m82npdqqhmmtq59l38r"},
	}
	for _, c := range cases {
		got, _ := address.Bech32("init", ContractAddress(c.code, c.inst))
		if got != c.want {
			t.Errorf("ContractAddress(%d, %d) = %s, want %s", c.code, c.inst, got, c.want)
		}
	}
	if got, _ := address.Bech32("init", ModuleAccount("tokenfactory")); got != "init19ejy8n9qsectrf4semdp9cpknflld0j6nka7xr" {
		t.Errorf("tokenfactory module account = %s", got)
	}
	if base64.StdEncoding.EncodeToString([]byte(`{"contract_info":{}}`)) != "eyJjb250cmFjdF9pbmZvIjp7fX0=" {
		t.Error("query encoding")
	}
}

// msgResponses returns the Any values of a TxMsgData (field 2: msg_responses; Any field 2: value).
func msgResponses(t *testing.T, data []byte) [][]byte {
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
