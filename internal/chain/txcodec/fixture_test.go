package txcodec

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/testutil"
)

type fixtureChain struct {
	dir, chainID string
}

var fixtureChains = []fixtureChain{
	{"minievm", "local-evm-1"},
	{"minimove", "local-move-1"},
	{"miniwasm", "local-wasm-1"},
}

type fixtureTx struct {
	height int64
	index  int
	bytes  []byte
}

// loadBlockTxs returns every tx of the captured CometBFT blocks, in height order.
func loadBlockTxs(t *testing.T, root string) []fixtureTx {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "comet", "block", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var out []fixtureTx
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var blk struct {
			Result struct {
				Block struct {
					Header struct {
						Height string `json:"height"`
					} `json:"header"`
					Data struct {
						Txs []string `json:"txs"`
					} `json:"data"`
				} `json:"block"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &blk); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		h, _ := strconv.ParseInt(blk.Result.Block.Header.Height, 10, 64)
		for i, s := range blk.Result.Block.Data.Txs {
			raw, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				t.Fatalf("%s tx %d: %v", f, i, err)
			}
			out = append(out, fixtureTx{height: h, index: i, bytes: raw})
		}
	}
	return out
}

// loadAccountNumbers maps bech32 addresses to account numbers from the captured
// /cosmos/auth/v1beta1/accounts answers.
func loadAccountNumbers(t *testing.T, root string) map[string]uint64 {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "rest", "misc", "accounts*.json"))
	out := map[string]uint64{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var resp struct {
			Accounts []struct {
				Address       string `json:"address"`
				AccountNumber string `json:"account_number"`
			} `json:"accounts"`
		}
		if err := json.Unmarshal(b, &resp); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, a := range resp.Accounts {
			if a.Address == "" {
				continue
			}
			n, _ := strconv.ParseUint(a.AccountNumber, 10, 64)
			out[a.Address] = n
		}
	}
	return out
}

// The captured chains accepted these txs, so their real eth_secp256k1 signatures must
// verify; flipping a byte of the chain id, the account number or the signature must not.
func TestVerifyCapturedSignatures(t *testing.T) {
	for _, c := range fixtureChains {
		t.Run(c.dir, func(t *testing.T) {
			root := testutil.Fixture(t, c.dir)
			accNums := loadAccountNumbers(t, root)
			txs := loadBlockTxs(t, root)
			if len(txs) == 0 {
				t.Fatal("no txs in fixture")
			}
			verified, ethWrapped := 0, 0
			for _, ft := range txs {
				tx, err := Decode(ft.bytes)
				if err != nil {
					t.Fatalf("h%d/%d decode: %v", ft.height, ft.index, err)
				}
				if _, err := os.Stat(filepath.Join(root, "rest", "tx", Hash(ft.bytes)+".json")); err != nil {
					t.Errorf("h%d/%d: hash %s has no captured /txs/{hash}: %v", ft.height, ft.index, Hash(ft.bytes), err)
				}
				seqs := map[string]uint64{}
				for _, s := range tx.Signers {
					if s.PubKey == nil {
						t.Fatalf("h%d/%d: unsupported signer key %v", ft.height, ft.index, s.PubKeyAny.GetTypeUrl())
					}
					bech, _ := address.Bech32("init", s.Address())
					seqs[bech] = s.Sequence
				}
				lookup := func(addr []byte) (Account, bool) {
					bech, _ := address.Bech32("init", addr)
					n, ok := accNums[bech]
					return Account{Number: n, Sequence: seqs[bech]}, ok
				}
				if tx.Signers[0].Mode == SignModeEthereum {
					if err := VerifySignatures(tx, c.chainID, lookup); !errors.Is(err, ErrUnsupportedSignMode) {
						t.Errorf("h%d/%d: eth-wrapped tx without WithEthereum: %v", ft.height, ft.index, err)
					}
					if err := VerifySignatures(tx, c.chainID, lookup, WithEthereum(capturedEVM)); err != nil {
						t.Errorf("h%d/%d: eth-wrapped tx: %v", ft.height, ft.index, err)
					}
					ethWrapped++
					continue
				}
				if err := VerifySignatures(tx, c.chainID, lookup); err != nil {
					t.Errorf("h%d/%d: %v", ft.height, ft.index, err)
					continue
				}
				verified++
				if err := VerifySignatures(tx, c.chainID+"x", lookup); err == nil {
					t.Errorf("h%d/%d: verified with wrong chain id", ft.height, ft.index)
				}
				wrongNum := func(addr []byte) (Account, bool) {
					a, ok := lookup(addr)
					a.Number++
					return a, ok
				}
				if err := VerifySignatures(tx, c.chainID, wrongNum); err == nil {
					t.Errorf("h%d/%d: verified with wrong account number", ft.height, ft.index)
				}
				tx.Raw.Signatures[0][5] ^= 1
				if err := VerifySignatures(tx, c.chainID, lookup); err == nil {
					t.Errorf("h%d/%d: verified a corrupted signature", ft.height, ft.index)
				}
				tx.Raw.Signatures[0][5] ^= 1
			}
			t.Logf("%d/%d captured txs verified, %d eth-wrapped verified", verified, len(txs), ethWrapped)
			if verified == 0 {
				t.Fatal("nothing verified")
			}
		})
	}
}
