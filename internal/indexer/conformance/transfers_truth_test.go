package conformance

import (
	"crypto/sha256"
	"crypto/sha3"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// The ground truth of the transfers index on the captured real chains, read from the raw
// captured CometBFT answers (comet/block/NNNN.json and comet/block_results/NNNN.json) with
// nothing of the indexer's own extraction: every x/bank `transfer`, `coinbase` and `burn`
// event, one movement per coin of its amount, and every ERC-20/ERC-721 `Transfer` log of the
// EVM chain's `evm` events (topic0 keccak256("Transfer(address,address,uint256)")).

// transferTopic is keccak256("Transfer(address,address,uint256)"), the Transfer event of both
// ERC-20 and ERC-721.
const transferTopic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"

type rawEvent struct {
	Type       string `json:"type"`
	Attributes []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"attributes"`
}

func (e rawEvent) attr(k string) (string, bool) {
	for _, a := range e.Attributes {
		if a.Key == k {
			return a.Value, true
		}
	}
	return "", false
}

// truthMove is one movement as the raw answers tell it; key renders it as the index row it
// must equal (kind, tx, message, accounts, token, amount).
type truthMove struct {
	height   int64
	tx       []byte
	msg      int
	kind     string
	from, to []byte
	denom    string
	contract []byte
	amount   string
	tokenID  string
}

func (m truthMove) key() string {
	return fmt.Sprintf("h=%d tx=%X msg=%d %s %x->%x %s contract=%x amount=%s token=%s", m.height, m.tx, m.msg, m.kind, m.from, m.to, m.denom, m.contract, m.amount, m.tokenID)
}

func rowKey(r store.TransferRecord) string {
	return truthMove{height: r.Height, tx: r.TxHash, msg: r.MsgIndex, kind: r.Kind, from: r.From, to: r.To, denom: r.Denom, contract: r.Contract,
		amount: r.Amount, tokenID: r.TokenID}.key()
}

var coinRE = regexp.MustCompile(`^([0-9]+)([a-zA-Z][a-zA-Z0-9/:._-]*)$`)

// rawCounts is what the raw answers hold of a chain.
type rawCounts struct {
	bankEvents, bankMoves int // transfer/coinbase/burn events and their coins
	logs, pairedLogs      int // Transfer logs, and those that are a bank movement's own log
	moves                 []truthMove
}

// moveCoinObject is the fungible-asset metadata object of a bank coin on a Move chain, the
// contract its movements carry: a move/<hex> denom names it; any other denom is the object
// 0x1 creates under the denom's name, sha3-256(0x1 as 32 bytes || denom || 0xFE) (Move's
// named-object address scheme).
func moveCoinObject(t *testing.T, denom string) []byte {
	if h, ok := strings.CutPrefix(denom, "move/"); ok {
		return hexBytes(t, h)
	}
	seed := append(append(append(make([]byte, 31), 1), denom...), 0xfe)
	sum := sha3.Sum256(seed)
	return sum[:]
}

// readTruth reads the capture dir's blocks 1..top.
func readTruth(t *testing.T, dir string, top int64, vm vmkind.Kind) rawCounts {
	t.Helper()
	var rc rawCounts
	for h := int64(1); h <= top; h++ {
		var blk struct {
			Result struct {
				Block struct {
					Data struct {
						Txs []string `json:"txs"`
					} `json:"data"`
				} `json:"block"`
			} `json:"result"`
		}
		var res struct {
			Result struct {
				TxsResults []struct {
					Code   int        `json:"code"`
					Events []rawEvent `json:"events"`
				} `json:"txs_results"`
				FinalizeBlockEvents []rawEvent `json:"finalize_block_events"`
			} `json:"result"`
		}
		testutil.ReadJSON(t, filepath.Join(dir, "comet", "block", fmt.Sprintf("%04d.json", h)), &blk)
		testutil.ReadJSON(t, filepath.Join(dir, "comet", "block_results", fmt.Sprintf("%04d.json", h)), &res)
		if len(blk.Result.Block.Data.Txs) != len(res.Result.TxsResults) {
			t.Fatalf("height %d: %d txs, %d results", h, len(blk.Result.Block.Data.Txs), len(res.Result.TxsResults))
		}
		for i, tr := range res.Result.TxsResults {
			raw, err := base64.StdEncoding.DecodeString(blk.Result.Block.Data.Txs[i])
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(raw)
			var bank []truthMove
			var logs []truthMove
			for _, e := range tr.Events {
				msg := -1
				if v, ok := e.attr("msg_index"); ok {
					if msg, err = strconv.Atoi(v); err != nil {
						t.Fatal(err)
					}
				}
				switch e.Type {
				case "transfer", "coinbase", "burn":
					rc.bankEvents++
					var from, to []byte
					kind := store.TransferSend
					switch e.Type {
					case "transfer":
						from, to = bech32(t, e, "sender"), bech32(t, e, "recipient")
					case "coinbase":
						kind, to = store.TransferMint, bech32(t, e, "minter")
					case "burn":
						kind, from = store.TransferBurn, bech32(t, e, "burner")
					}
					amount, _ := e.attr("amount")
					for _, coin := range strings.Split(amount, ",") {
						if coin == "" {
							continue
						}
						m := coinRE.FindStringSubmatch(coin)
						if m == nil {
							t.Fatalf("height %d: coin %q", h, coin)
						}
						denom := m[2]
						if strings.HasPrefix(denom, "evm/") {
							denom = strings.ToLower(denom)
						}
						rc.bankMoves++
						mv := truthMove{height: h, tx: sum[:], msg: msg, kind: kind, from: from, to: to, denom: denom, amount: m[1]}
						if vm == vmkind.Move {
							mv.contract = moveCoinObject(t, denom)
						}
						bank = append(bank, mv)
					}
				case evmLogEvent:
					v, ok := e.attr("log")
					if !ok {
						continue
					}
					var lg struct {
						Address string   `json:"address"`
						Topics  []string `json:"topics"`
						Data    string   `json:"data"`
					}
					if err := json.Unmarshal([]byte(v), &lg); err != nil {
						t.Fatal(err)
					}
					if len(lg.Topics) < 3 || lg.Topics[0] != transferTopic {
						continue
					}
					rc.logs++
					contract := hexBytes(t, lg.Address)
					from, to := topicAddr(t, lg.Topics[1]), topicAddr(t, lg.Topics[2])
					m := truthMove{height: h, tx: sum[:], msg: msg, from: from, to: to, contract: contract,
						denom: "evm/" + strings.ToLower(strings.TrimPrefix(lg.Address, "0x"))}
					if len(lg.Topics) == 4 {
						m.kind, m.tokenID, m.amount = store.TransferERC721, word(t, lg.Topics[3]), "1"
					} else {
						m.kind, m.amount = store.TransferERC20, word(t, lg.Data)
					}
					logs = append(logs, m)
				}
			}
			// minievm keeps bank balances in ERC-20 contracts: a bank movement comes with its
			// contract's Transfer log (same tx, accounts and amount). That log is the same
			// movement: the bank row, carrying the contract; the other logs are movements of
			// their own.
			for _, l := range logs {
				j := slices.IndexFunc(bank, func(b truthMove) bool {
					return b.contract == nil && l.kind == store.TransferERC20 && slices.Equal(b.from, l.from) && slices.Equal(b.to, l.to) && b.amount == l.amount
				})
				if j >= 0 {
					bank[j].contract = l.contract
					rc.pairedLogs++
					continue
				}
				rc.moves = append(rc.moves, l)
			}
			rc.moves = append(rc.moves, bank...)
		}
		for _, e := range res.Result.FinalizeBlockEvents {
			if e.Type == "transfer" || e.Type == "coinbase" || e.Type == "burn" {
				t.Fatalf("height %d: a block-level %s event: not modelled here", h, e.Type)
			}
		}
	}
	return rc
}

func bech32(t *testing.T, e rawEvent, k string) []byte {
	t.Helper()
	v, ok := e.attr(k)
	if !ok {
		t.Fatalf("%s event without %s", e.Type, k)
	}
	b, err := address.Parse("init", v)
	if err != nil {
		t.Fatalf("%s %s %q: %v", e.Type, k, v, err)
	}
	return b
}

func hexBytes(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(strings.ToLower(s), "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// topicAddr is the address in a 32-byte topic; nil for the zero address (a mint or burn).
func topicAddr(t *testing.T, topic string) []byte {
	t.Helper()
	b := hexBytes(t, topic)
	a := b[len(b)-20:]
	if slices.Equal(a, make([]byte, 20)) {
		return nil
	}
	return a
}

// word is a 32-byte word as a decimal.
func word(t *testing.T, s string) string {
	t.Helper()
	return new(big.Int).SetBytes(hexBytes(t, s)).String()
}

// TestTransfersEqualCapturedEvents: on each captured real chain, the transfers index holds,
// row for row, the movements the raw captured block results report: every bank transfer,
// coinbase and burn event (one row per coin), and on the EVM chain every ERC-20 and ERC-721
// Transfer log, a log that is a bank movement's own (minievm's ERC-20-backed bank) folded
// into that movement as its contract; on the Move chain a bank movement carries its coin's
// metadata object as its contract. Rows of the kinds these events do not report (Move
// fungible-asset and object events, CW20/CW721) are counted and left to their own tests.
func TestTransfersEqualCapturedEvents(t *testing.T) {
	for _, c := range []struct {
		fixture string
		vm      vmkind.Kind
	}{{"minievm", vmkind.EVM}, {testutil.Busy, vmkind.EVM}, {"minimove", vmkind.Move}, {"miniwasm", vmkind.Wasm}} {
		t.Run(c.fixture, func(t *testing.T) {
			if c.fixture == testutil.Busy && testing.Short() {
				t.Skip("the busy capture is internal/bench's under -short")
			}
			chain := ingestCaptured(t, c.fixture, c.vm, "sqlite:"+filepath.Join(t.TempDir(), "index.db"))
			top, err := chain.db.IndexedHeight(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			rc := readTruth(t, testutil.Fixture(t, c.fixture), top, c.vm)
			covered := map[string]bool{store.TransferSend: true, store.TransferMint: true, store.TransferBurn: true, store.TransferERC20: true, store.TransferERC721: true}
			var got []string
			others := map[string]int{}
			for _, r := range allTransfers(t, chain.db) {
				if covered[r.Kind] {
					got = append(got, rowKey(r))
				} else {
					others[r.Kind]++
				}
			}
			want := make([]string, len(rc.moves))
			kinds := map[string]int{}
			for i, m := range rc.moves {
				want[i] = m.key()
				kinds[m.kind]++
			}
			slices.Sort(got)
			slices.Sort(want)
			for _, k := range want {
				if _, found := slices.BinarySearch(got, k); !found {
					t.Errorf("in the raw events, not in the index: %s", k)
				}
			}
			for _, k := range got {
				if _, found := slices.BinarySearch(want, k); !found {
					t.Errorf("in the index, not in the raw events: %s", k)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d index rows of these kinds, %d movements in the raw events", len(got), len(want))
			}
			t.Logf("%s (heights 1..%d): raw: %d bank events (%d coin movements), %d Transfer logs (%d of them a bank movement's own); "+
				"index rows matched: %d %v; other kinds in the index: %v", c.fixture, top, rc.bankEvents, rc.bankMoves, rc.logs, rc.pairedLogs, len(got), kinds, others)
		})
	}
}

// evmLogEvent is the Cosmos event type under which minievm reports each EVM log (attribute
// "log": the log as JSON), named so that it is not read as the VM kind.
const evmLogEvent = "evm"
