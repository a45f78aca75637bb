package txcodec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/types/known/anypb"

	"github.com/google/go-cmp/cmp"

	"github.com/rollgate/rollgate/internal/testutil"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
)

func indent(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("indent: %v\n%s", err, b)
	}
	return out.String()
}

// Every tx of every captured block, rendered from its raw bytes, must equal what the
// chain's REST API served for the same block: same keys in the same order, same values.
func TestTxJSONMatchesCapturedREST(t *testing.T) {
	for _, c := range fixtureChains {
		t.Run(c.dir, func(t *testing.T) {
			root := testutil.Fixture(t, c.dir)
			txs := loadBlockTxs(t, root)
			byHeight := map[int64][]fixtureTx{}
			for _, ft := range txs {
				byHeight[ft.height] = append(byHeight[ft.height], ft)
			}
			compared := 0
			for h, list := range byHeight {
				path := filepath.Join(root, "rest", "txs_block", fmt.Sprintf("%04d.json", h))
				b, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("h%d: %v", h, err)
					continue
				}
				var resp struct {
					Txs []json.RawMessage `json:"txs"`
				}
				if err := json.Unmarshal(b, &resp); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if len(resp.Txs) != len(list) {
					t.Errorf("h%d: %d REST txs, %d block txs", h, len(resp.Txs), len(list))
					continue
				}
				for _, ft := range list {
					got, err := TxJSON(ft.bytes)
					if err != nil {
						t.Errorf("h%d/%d: %v", h, ft.index, err)
						continue
					}
					if want := indent(t, resp.Txs[ft.index]); indent(t, got) != want {
						t.Errorf("h%d/%d differs (-want +got):\n%s", h, ft.index, cmp.Diff(want, indent(t, got)))
					}
					compared++
				}
			}
			t.Logf("%d txs compared", compared)
			if compared == 0 {
				t.Fatal("nothing compared")
			}
		})
	}
}

func TestMarshalJSONCases(t *testing.T) {
	tests := []struct {
		name string
		got  func() ([]byte, error)
		want string
	}{
		{"unknown any", func() ([]byte, error) {
			return MarshalJSON(&anypb.Any{TypeUrl: "/foo.v1.MsgBar", Value: []byte{1, 2, 3}})
		}, `{"@type":"/foo.v1.MsgBar","value":"AQID"}`},
		{"known any", func() ([]byte, error) {
			a, _ := PackAny(&bankv1beta1.MsgSend{FromAddress: "a<b", Amount: []*basev1beta1.Coin{{Denom: "u"}}})
			return MarshalJSON(a)
		}, `{"@type":"/cosmos.bank.v1beta1.MsgSend","from_address":"a\u003cb","to_address":"","amount":[{"denom":"u","amount":"0"}]}`},
		{"non-nullable zero", func() ([]byte, error) {
			return MarshalJSON(&transferv1.MsgTransfer{SourcePort: "transfer"})
		}, `{"source_port":"transfer","source_channel":"","token":{"denom":"","amount":"0"},"sender":"","receiver":"","timeout_height":{"revision_number":"0","revision_height":"0"},"timeout_timestamp":"0","memo":""}`},
		{"deposit bytes", func() ([]byte, error) {
			return MarshalJSON(&ophostv1.MsgInitiateTokenDeposit{BridgeId: 7, Data: []byte("hi")})
		}, `{"sender":"","bridge_id":"7","to":"","amount":{"denom":"","amount":"0"},"data":"aGk="}`},
		{"dec coin", func() ([]byte, error) {
			return MarshalJSON(&basev1beta1.DecCoin{Denom: "u", Amount: "1500000000000000000"})
		}, `{"denom":"u","amount":"1.500000000000000000"}`},
	}
	for _, tc := range tests {
		got, err := tc.got()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestLegacyDecString(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "0.000000000000000000",
		"1":                    "0.000000000000000001",
		"1000000000000000000":  "1.000000000000000000",
		"-2500000000000000000": "-2.500000000000000000",
		"abc":                  "abc",
	} {
		if got := legacyDecString(in); got != want {
			t.Errorf("legacyDecString(%q) = %q, want %q", in, got, want)
		}
	}
}

// GET /cosmos/tx/v1beta1/txs/{hash} serves the tx twice: as "tx" (plain) and as
// "tx_response.tx" (an Any with @type). Both must match.
func TestTxJSONMatchesCapturedTxByHash(t *testing.T) {
	for _, c := range fixtureChains {
		t.Run(c.dir, func(t *testing.T) {
			root := testutil.Fixture(t, c.dir)
			compared := 0
			for _, ft := range loadBlockTxs(t, root) {
				b, err := os.ReadFile(filepath.Join(root, "rest", "tx", Hash(ft.bytes)+".json"))
				if err != nil {
					continue
				}
				var resp struct {
					Tx         json.RawMessage `json:"tx"`
					TxResponse struct {
						Tx json.RawMessage `json:"tx"`
					} `json:"tx_response"`
				}
				if err := json.Unmarshal(b, &resp); err != nil {
					t.Fatal(err)
				}
				plain, err := TxJSON(ft.bytes)
				if err != nil {
					t.Fatal(err)
				}
				anyJSON, err := TxAnyJSON(ft.bytes)
				if err != nil {
					t.Fatal(err)
				}
				if want := indent(t, resp.Tx); indent(t, plain) != want {
					t.Errorf("h%d/%d tx differs:\n%s", ft.height, ft.index, cmp.Diff(want, indent(t, plain)))
				}
				if want := indent(t, resp.TxResponse.Tx); indent(t, anyJSON) != want {
					t.Errorf("h%d/%d tx_response.tx differs:\n%s", ft.height, ft.index, cmp.Diff(want, indent(t, anyJSON)))
				}
				compared++
			}
			if compared == 0 {
				t.Fatal("nothing compared")
			}
		})
	}
}

// TestBlockTxsJSON: a captured block's txs render as TxJSON renders each one, in block order,
// and a block holding a tx that cannot be rendered faithfully renders as nil (asked of REST).
func TestBlockTxsJSON(t *testing.T) {
	txs := loadBlockTxs(t, testutil.Fixture(t, fixtureChains[0].dir))
	if len(txs) == 0 {
		t.Fatal("no captured txs")
	}
	var block [][]byte
	for _, ft := range txs {
		if ft.height == txs[0].height {
			block = append(block, ft.bytes)
		}
	}
	got := BlockTxsJSON(block)
	if len(got) != len(block) {
		t.Fatalf("%d txs rendered of %d", len(got), len(block))
	}
	for i, b := range block {
		want, err := TxJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[i], want) {
			t.Errorf("tx %d: %s, want %s", i, got[i], want)
		}
	}
	if got := BlockTxsJSON(append(block, []byte{0xff, 0x01})); got != nil {
		t.Errorf("a block with an undecodable tx: %d rendered, want nil", len(got))
	}
}
