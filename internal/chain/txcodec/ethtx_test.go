package txcodec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rollgate/rollgate/internal/testutil"
)

var capturedEVM = EthConfig{ChainID: big.NewInt(0x700dbe591233), Bech32Prefix: "init", FeeDenom: "GAS", FeeDecimals: 18}

// loadEthBlockTxs returns the signed Ethereum txs of a captured eth_getBlockByNumber
// (full) answer, by hash; the pseudo txs standing for plain cosmos txs are skipped.
func loadEthBlockTxs(t *testing.T, root string, height int64) map[string]*types.Transaction {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "evm", "eth_getBlockByNumber_full", fmt.Sprintf("%04d.json", height)))
	if err != nil {
		return nil
	}
	var resp struct {
		Result struct {
			Transactions []json.RawMessage `json:"transactions"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	out := map[string]*types.Transaction{}
	for _, raw := range resp.Result.Transactions {
		tx := new(types.Transaction)
		if err := tx.UnmarshalJSON(raw); err != nil {
			continue
		}
		if v, r, s := tx.RawSignatureValues(); v.Sign() == 0 && r.Sign() == 0 && s.Sign() == 0 {
			continue
		}
		out[tx.Hash().Hex()] = tx
	}
	return out
}

// Every Ethereum tx the captured minievm put in a block converts to exactly the cosmos
// tx bytes of that block, and back to the same Ethereum hash and sender.
func TestEthWrappedTxsMatchCapture(t *testing.T) {
	root := testutil.Fixture(t, "minievm")
	checked := 0
	for _, ft := range loadBlockTxs(t, root) {
		d, err := Decode(ft.bytes)
		if err != nil {
			t.Fatal(err)
		}
		if d.Signers[0].Mode != SignModeEthereum {
			if _, err := CosmosToEthTx(d, capturedEVM); !errors.Is(err, ErrEthTx) {
				t.Errorf("h%d/%d: plain cosmos tx accepted as eth: %v", ft.height, ft.index, err)
			}
			continue
		}
		ethTx, err := CosmosToEthTx(d, capturedEVM)
		if err != nil {
			t.Errorf("h%d/%d: %v", ft.height, ft.index, err)
			continue
		}
		captured := loadEthBlockTxs(t, root, ft.height)[ethTx.Hash().Hex()]
		if captured == nil {
			t.Errorf("h%d/%d: rebuilt eth tx %s is not in the captured block", ft.height, ft.index, ethTx.Hash().Hex())
			continue
		}
		back, err := EthTxToCosmos(captured, capturedEVM)
		if err != nil {
			t.Errorf("h%d/%d: %v", ft.height, ft.index, err)
			continue
		}
		if !bytes.Equal(back, ft.bytes) {
			t.Errorf("h%d/%d: wrapped bytes differ\n got %x\nwant %x", ft.height, ft.index, back, ft.bytes)
		}
		// A tampered signature must not recover to the signer.
		d.Raw.Signatures[0][10] ^= 1
		if _, err := CosmosToEthTx(d, capturedEVM); err == nil {
			t.Errorf("h%d/%d: tampered signature accepted", ft.height, ft.index)
		}
		checked++
	}
	t.Logf("%d eth-wrapped txs checked", checked)
	if checked == 0 {
		t.Fatal("no eth-wrapped txs found")
	}
}
