package move

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// Fixture accounts (minimove README).
var acc1, acc2, acc3, acc4 = simtest.Acc1, simtest.Acc2, simtest.Acc3, simtest.Acc4

// fxMsg is a Move message of the capture.
type fxMsg struct {
	Type         string            `json:"@type"`
	Sender       string            `json:"sender"`
	ModuleAddr   string            `json:"module_address"`
	ModuleName   string            `json:"module_name"`
	FunctionName string            `json:"function_name"`
	TypeArgs     []string          `json:"type_args"`
	Args         []json.RawMessage `json:"args"`
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
	simtest.FundFixtureAccounts(f.Bal)
	if err := m.InitGenesis(f); err != nil {
		t.Fatal(err)
	}
	f.Commit()
	return m, f
}

// replay runs the fixture chain through the module (Move calls) and the flavor (bank sends
// and fees), comparing every event with the capture; it returns the chain for query tests.
func replay(t *testing.T) (*Module, *simtest.Chain) {
	m, f := genesis(t)
	compared := simtest.Replay{
		Dir:          testutil.Fixture(t, "minimove"),
		Chain:        f,
		FeeCollector: address.ModuleAccount("fee_collector"),
		Handle:       simtest.Dispatch(t, f, m.Handlers(), func(fx fxMsg) proto.Message { return toProto(t, fx) }),
	}.Run(t)
	// The capture's txs carry 37 messages that run to completion; fewer compared means the
	// replay stopped reading some of them, and a clean diff would prove nothing about those.
	if compared < 37 {
		t.Fatalf("only %d messages compared", compared)
	}
	return m, f
}

func TestReplayFixtureEvents(t *testing.T) {
	replay(t)
}

// TestResourceQueries asks every Move query the fixture recorded against the replayed chain
// and compares the bytes (collection table handles aside: they come from the tx context).
func TestResourceQueries(t *testing.T) {
	m, f := replay(t)
	mux := http.NewServeMux()
	m.Routes(mux, f.QueryAt)
	n := simtest.ReplayQueries(t, testutil.Fixture(t, "minimove"), mux,
		func(u string) bool { return strings.Contains(u, "/initia/move/v1/") },
		func(file string, want, got []byte) ([]byte, []byte) {
			if strings.Contains(file, "collection_") {
				return normalizeHandles(t, want), normalizeHandles(t, got)
			}
			return want, got
		})
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
