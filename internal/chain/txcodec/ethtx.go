package txcodec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/rollgate/rollgate/internal/chain/address"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
)

// minievm carries every Ethereum tx in the CometBFT block as a cosmos tx: one MsgCall
// (or MsgCreate for a contract creation) from the sender, the Ethereum fee fields as a
// JSON memo, fee gas_limit = gas, one signer with the recovered eth_secp256k1 key in
// sign mode 9999 whose sequence is the nonce, and the signature r||s||recovery id.
// The two functions below convert both ways; the captured minievm chain is the test.

// ErrEthTx wraps Ethereum tx conversion failures.
var ErrEthTx = errors.New("ethereum tx")

// EthConfig describes the EVM side of a minievm chain.
type EthConfig struct {
	// ChainID is the EVM chain id (e.g. 123204330394163 for the captured local-evm-1).
	ChainID *big.Int
	// Bech32Prefix of account addresses ("init").
	Bech32Prefix string
	// FeeDenom is the cosmos denom fees are paid in.
	FeeDenom string
	// FeeDecimals is the fee denom's decimals (18 for GAS); wei amounts are divided by
	// 10^(18-FeeDecimals), rounding up, to get fee denom amounts. Zero means 18.
	FeeDecimals int
}

// ethMemo is the memo layout; encoding/json keeps this field order and renders the
// big integers as bare numbers, as the chain does.
type ethMemo struct {
	Type      uint8    `json:"type"`
	GasFeeCap *big.Int `json:"gas_fee_cap"`
	GasTipCap *big.Int `json:"gas_tip_cap"`
	GasLimit  uint64   `json:"gas_limit"`
}

// EthTxToCosmos wraps a signed Ethereum tx (legacy, access list or dynamic fee) the way
// minievm puts it in the block, returning the TxRaw bytes.
func EthTxToCosmos(tx *types.Transaction, cfg EthConfig) ([]byte, error) {
	signer := types.LatestSignerForChainID(cfg.ChainID)
	from, err := types.Sender(signer, tx)
	if err != nil {
		return nil, fmt.Errorf("%w: sender: %w", ErrEthTx, err)
	}
	v, r, s := tx.RawSignatureValues()
	recID, err := recoveryID(tx, v)
	if err != nil {
		return nil, err
	}
	sig := make([]byte, 65)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:64])
	sig[64] = recID
	compact := append([]byte{27 + recID}, sig[:64]...)
	pub, _, err := recoverCompact(compact, signer.Hash(tx).Bytes())
	if err != nil {
		return nil, fmt.Errorf("%w: recover pubkey: %w", ErrEthTx, err)
	}
	pk := PubKey{Type: EthSecp256k1, Key: pub}
	if !bytes.Equal(pk.Address(), from.Bytes()) {
		return nil, fmt.Errorf("%w: recovered key does not match sender", ErrEthTx)
	}
	sender, err := address.Bech32(cfg.Bech32Prefix, from.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEthTx, err)
	}
	var acl []*evmv1.AccessTuple
	for _, t := range tx.AccessList() {
		at := &evmv1.AccessTuple{Address: t.Address.Hex()}
		for _, k := range t.StorageKeys {
			at.StorageKeys = append(at.StorageKeys, k.Hex())
		}
		acl = append(acl, at)
	}
	value := weiToFee(tx.Value(), cfg.FeeDecimals).String()
	var msg proto.Message
	if tx.To() == nil {
		msg = &evmv1.MsgCreate{Sender: sender, Code: hexutil.Encode(tx.Data()), Value: value, AccessList: acl}
	} else {
		msg = &evmv1.MsgCall{Sender: sender, ContractAddr: tx.To().Hex(), Input: hexutil.Encode(tx.Data()), Value: value, AccessList: acl}
	}
	memo, err := json.Marshal(ethMemo{Type: tx.Type(), GasFeeCap: tx.GasFeeCap(), GasTipCap: tx.GasTipCap(), GasLimit: tx.Gas()})
	if err != nil {
		return nil, fmt.Errorf("%w: memo: %w", ErrEthTx, err)
	}
	a, err := PackAny(msg)
	if err != nil {
		return nil, err
	}
	bodyBytes, err := marshalOpts.Marshal(&txv1beta1.TxBody{Messages: []*anypb.Any{a}, Memo: string(memo)})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEthTx, err)
	}
	pkAny, err := pk.Any()
	if err != nil {
		return nil, err
	}
	var feeAmount []*basev1beta1.Coin
	if fee := weiToFee(new(big.Int).Mul(tx.GasFeeCap(), new(big.Int).SetUint64(tx.Gas())), cfg.FeeDecimals); fee.Sign() > 0 {
		feeAmount = []*basev1beta1.Coin{{Denom: cfg.FeeDenom, Amount: fee.String()}}
	}
	authBytes, err := marshalOpts.Marshal(&txv1beta1.AuthInfo{
		SignerInfos: []*txv1beta1.SignerInfo{{
			PublicKey: pkAny,
			ModeInfo:  &txv1beta1.ModeInfo{Sum: &txv1beta1.ModeInfo_Single_{Single: &txv1beta1.ModeInfo_Single{Mode: SignModeEthereum}}},
			Sequence:  tx.Nonce(),
		}},
		Fee: &txv1beta1.Fee{Amount: feeAmount, GasLimit: tx.Gas()},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEthTx, err)
	}
	return marshalOpts.Marshal(&txv1beta1.TxRaw{BodyBytes: bodyBytes, AuthInfoBytes: authBytes, Signatures: [][]byte{sig}})
}

// CosmosToEthTx rebuilds the signed Ethereum tx from a decoded mode-9999 cosmos tx and
// checks that its signature recovers to the cosmos signer. Its Hash() is the tx's
// Ethereum hash.
func CosmosToEthTx(d *DecodedTx, cfg EthConfig) (*types.Transaction, error) {
	if len(d.Signers) != 1 || d.Signers[0].Mode != SignModeEthereum || len(d.Msgs) != 1 || len(d.Raw.Signatures) != 1 {
		return nil, fmt.Errorf("%w: not an Ethereum-wrapped tx", ErrEthTx)
	}
	sig := d.Raw.Signatures[0]
	if len(sig) != 65 || sig[64] > 1 {
		return nil, fmt.Errorf("%w: signature must be r||s||recovery id", ErrEthTx)
	}
	var memo ethMemo
	if err := json.Unmarshal([]byte(d.Body.Memo), &memo); err != nil {
		return nil, fmt.Errorf("%w: memo: %w", ErrEthTx, err)
	}
	if memo.GasFeeCap == nil {
		memo.GasFeeCap = new(big.Int)
	}
	if memo.GasTipCap == nil {
		memo.GasTipCap = new(big.Int)
	}
	var (
		to         *common.Address
		data       []byte
		valueStr   string
		accessList []*evmv1.AccessTuple
		err        error
	)
	switch m := d.Msgs[0].(type) {
	case *evmv1.MsgCall:
		if !common.IsHexAddress(m.ContractAddr) {
			return nil, fmt.Errorf("%w: contract_addr %q", ErrEthTx, m.ContractAddr)
		}
		a := common.HexToAddress(m.ContractAddr)
		to = &a
		data, err = hexutil.Decode(emptyHex(m.Input))
		valueStr, accessList = m.Value, m.AccessList
	case *evmv1.MsgCreate:
		data, err = hexutil.Decode(emptyHex(m.Code))
		valueStr, accessList = m.Value, m.AccessList
	default:
		return nil, fmt.Errorf("%w: message %T", ErrEthTx, d.Msgs[0])
	}
	if err != nil {
		return nil, fmt.Errorf("%w: data: %w", ErrEthTx, err)
	}
	value, ok := new(big.Int).SetString(defaultStr(valueStr, "0"), 10)
	if !ok {
		return nil, fmt.Errorf("%w: value %q", ErrEthTx, valueStr)
	}
	value = feeToWei(value, cfg.FeeDecimals)
	var acl types.AccessList
	for _, t := range accessList {
		tuple := types.AccessTuple{Address: common.HexToAddress(t.Address)}
		for _, k := range t.StorageKeys {
			tuple.StorageKeys = append(tuple.StorageKeys, common.HexToHash(k))
		}
		acl = append(acl, tuple)
	}
	r := new(big.Int).SetBytes(sig[:32])
	s := new(big.Int).SetBytes(sig[32:64])
	recID := new(big.Int).SetUint64(uint64(sig[64]))
	nonce := d.Signers[0].Sequence
	var inner types.TxData
	switch memo.Type {
	case types.LegacyTxType:
		v := new(big.Int).Add(new(big.Int).Mul(cfg.ChainID, big.NewInt(2)), big.NewInt(35))
		inner = &types.LegacyTx{Nonce: nonce, GasPrice: memo.GasFeeCap, Gas: memo.GasLimit, To: to, Value: value, Data: data,
			V: v.Add(v, recID), R: r, S: s}
	case types.AccessListTxType:
		inner = &types.AccessListTx{ChainID: cfg.ChainID, Nonce: nonce, GasPrice: memo.GasFeeCap, Gas: memo.GasLimit, To: to, Value: value,
			Data: data, AccessList: acl, V: recID, R: r, S: s}
	case types.DynamicFeeTxType:
		inner = &types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: nonce, GasTipCap: memo.GasTipCap, GasFeeCap: memo.GasFeeCap, Gas: memo.GasLimit,
			To: to, Value: value, Data: data, AccessList: acl, V: recID, R: r, S: s}
	default:
		return nil, fmt.Errorf("%w: unsupported tx type %d", ErrEthTx, memo.Type)
	}
	tx := types.NewTx(inner)
	from, err := types.Sender(types.LatestSignerForChainID(cfg.ChainID), tx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %w", ErrUnauthorized, ErrEthTx, err)
	}
	if d.Signers[0].PubKey == nil || !bytes.Equal(from.Bytes(), d.Signers[0].PubKey.Address()) {
		return nil, fmt.Errorf("%w: Ethereum signature does not recover to the signer", ErrUnauthorized)
	}
	return tx, nil
}

func recoveryID(tx *types.Transaction, v *big.Int) (byte, error) {
	if tx.Type() != types.LegacyTxType {
		if v.Cmp(big.NewInt(1)) > 0 {
			return 0, fmt.Errorf("%w: v %s", ErrEthTx, v)
		}
		return byte(v.Uint64()), nil
	}
	if !tx.Protected() {
		return byte(new(big.Int).Sub(v, big.NewInt(27)).Uint64()), nil
	}
	id := new(big.Int).Sub(v, new(big.Int).Mul(tx.ChainId(), big.NewInt(2)))
	id.Sub(id, big.NewInt(35))
	if id.Sign() < 0 || id.Cmp(big.NewInt(1)) > 0 {
		return 0, fmt.Errorf("%w: v %s", ErrEthTx, v)
	}
	return byte(id.Uint64()), nil
}

func recoverCompact(sig, hash []byte) ([]byte, bool, error) {
	pub, compressed, err := ecdsa.RecoverCompact(sig, hash)
	if err != nil {
		return nil, false, err
	}
	return pub.SerializeCompressed(), compressed, nil
}

func weiToFee(wei *big.Int, decimals int) *big.Int {
	if decimals == 0 || decimals == 18 {
		return new(big.Int).Set(wei)
	}
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(18-decimals)), nil)
	q, m := new(big.Int).QuoRem(wei, div, new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func feeToWei(v *big.Int, decimals int) *big.Int {
	if decimals == 0 || decimals == 18 {
		return v
	}
	return new(big.Int).Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(18-decimals)), nil))
}

func emptyHex(s string) string {
	if s == "" {
		return "0x"
	}
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return "0x" + s
	}
	return s
}

func defaultStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
