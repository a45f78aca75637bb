package evm

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// ethMemo is the memo minievm writes into a wrapped Ethereum tx.
type ethMemo struct {
	Type      int    `json:"type"`
	GasFeeCap uint64 `json:"gas_fee_cap"`
	GasTipCap uint64 `json:"gas_tip_cap"`
	GasLimit  uint64 `json:"gas_limit"`
}

func (e ethMemo) String() string {
	return fmt.Sprintf(`{"type":%d,"gas_fee_cap":%d,"gas_tip_cap":%d,"gas_limit":%d}`, e.Type, e.GasFeeCap, e.GasTipCap, e.GasLimit)
}

// IsEthTx reports whether a decoded tx is a wrapped Ethereum tx (sign mode 9999).
func IsEthTx(tx *engine.Tx) bool {
	return len(tx.Signers) == 1 && tx.Signers[0].Mode == engine.SignModeEthereum && len(tx.Msgs) == 1
}

// EthTxOf rebuilds the signed Ethereum transaction a wrapped Cosmos tx came from.
func EthTxOf(tx *engine.Tx, evmChainID uint64, prefix string) (*types.Transaction, error) {
	if !IsEthTx(tx) {
		return nil, errors.New("not an Ethereum tx")
	}
	var memo ethMemo
	if err := json.Unmarshal([]byte(tx.Memo), &memo); err != nil {
		return nil, fmt.Errorf("ethereum tx memo: %w", err)
	}
	msg, err := engine.DecodeAny(tx.Msgs[0].TypeUrl, tx.Msgs[0].Value)
	if err != nil {
		return nil, err
	}
	var to *common.Address
	var data []byte
	var valueStr string
	switch m := msg.(type) {
	case *evmv1.MsgCall:
		a, err := parseAddr(prefix, m.GetContractAddr())
		if err != nil {
			return nil, err
		}
		to = &a
		data, err = hex.DecodeString(strings.TrimPrefix(m.GetInput(), "0x"))
		if err != nil {
			return nil, err
		}
		valueStr = m.GetValue()
	case *evmv1.MsgCreate:
		data, err = hex.DecodeString(strings.TrimPrefix(m.GetCode(), "0x"))
		if err != nil {
			return nil, err
		}
		valueStr = m.GetValue()
	default:
		return nil, fmt.Errorf("unexpected message %T in an Ethereum tx", msg)
	}
	value, err := parseValue(valueStr)
	if err != nil {
		return nil, err
	}
	sig := tx.Signatures[0]
	if len(sig) != 65 {
		return nil, errors.New("ethereum signature must be 65 bytes")
	}
	cid := new(big.Int).SetUint64(evmChainID)
	nonce := tx.Signers[0].Sequence
	var unsigned *types.Transaction
	var signer types.Signer
	if memo.Type == 0 {
		unsigned = types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: new(big.Int).SetUint64(memo.GasFeeCap), Gas: memo.GasLimit, To: to, Value: value, Data: data})
		signer = types.NewEIP155Signer(cid)
	} else {
		unsigned = types.NewTx(&types.DynamicFeeTx{ChainID: cid, Nonce: nonce, GasTipCap: new(big.Int).SetUint64(memo.GasTipCap),
			GasFeeCap: new(big.Int).SetUint64(memo.GasFeeCap), Gas: memo.GasLimit, To: to, Value: value, Data: data, AccessList: types.AccessList{}})
		signer = types.NewLondonSigner(cid)
	}
	return unsigned.WithSignature(signer, sig)
}

// Verifier checks wrapped Ethereum txs: the recovered sender must be the signer's key.
func (m *Module) Verifier() engine.CustomVerifier {
	return func(chainID string, tx *engine.Tx, signer int, _ []proto.Message) error {
		if tx.Signers[signer].Mode != engine.SignModeEthereum {
			return fmt.Errorf("unsupported sign mode %d", tx.Signers[signer].Mode)
		}
		cid := m.EVMChainID(chainID)
		etx, err := EthTxOf(tx, cid, "init")
		if err != nil {
			return err
		}
		from, err := types.Sender(types.LatestSignerForChainID(new(big.Int).SetUint64(cid)), etx)
		if err != nil {
			return err
		}
		want, err := engine.AddressOf(tx.Signers[signer].PubKeyType, tx.Signers[signer].PubKey)
		if err != nil {
			return err
		}
		if !strings.EqualFold(from.Hex()[2:], hex.EncodeToString(want)) {
			return errors.New("ethereum signature does not match the signer")
		}
		return nil
	}
}

// Signer signs single-message MsgCall/MsgCreate intents without memo as Ethereum txs, the way
// a wallet talking eth_sendRawTransaction does; everything else stays SIGN_MODE_DIRECT.
func (m *Module) Signer() engine.CustomSigner {
	return func(chainID string, key *engine.Key, _ uint64, seq uint64, in sim.Intent, _ engine.Fee) ([]byte, bool, error) {
		if len(in.Msgs) != 1 || in.Memo != "" || !key.Eth {
			return nil, false, nil
		}
		var to *common.Address
		var data []byte
		var valueStr string
		switch msg := in.Msgs[0].(type) {
		case *evmv1.MsgCall:
			a, err := parseAddr("init", msg.GetContractAddr())
			if err != nil {
				return nil, false, err
			}
			to = &a
			data = common.FromHex(msg.GetInput())
			valueStr = msg.GetValue()
		case *evmv1.MsgCreate:
			data = common.FromHex(msg.GetCode())
			valueStr = msg.GetValue()
		default:
			return nil, false, nil
		}
		value, err := parseValue(valueStr)
		if err != nil {
			return nil, false, err
		}
		gas := in.GasLimit
		if gas == 0 {
			gas = 300000
		}
		cid := new(big.Int).SetUint64(m.EVMChainID(chainID))
		var etx *types.Transaction
		typ := 2
		if seq%4 == 3 { // a legacy tx now and then, as the fixture has
			typ = 0
			etx = types.NewTx(&types.LegacyTx{Nonce: seq, GasPrice: new(big.Int), Gas: gas, To: to, Value: value, Data: data})
		} else {
			etx = types.NewTx(&types.DynamicFeeTx{ChainID: cid, Nonce: seq, GasTipCap: new(big.Int), GasFeeCap: new(big.Int), Gas: gas, To: to, Value: value, Data: data, AccessList: types.AccessList{}})
		}
		signed, err := types.SignTx(etx, types.LatestSignerForChainID(cid), key.ECDSA())
		if err != nil {
			return nil, false, fmt.Errorf("sign ethereum tx: %w", err)
		}
		raw, err := WrapEthTx(signed, cid.Uint64(), key.PubKey(), typ, in.Msgs[0])
		return raw, err == nil, err
	}
}

// sig65 is r||s||yParity of a signed Ethereum tx.
func sig65(tx *types.Transaction, chainID uint64) []byte {
	v, r, s := tx.RawSignatureValues()
	rec := new(big.Int).Set(v)
	if tx.Type() == types.LegacyTxType && v.Uint64() >= 35 {
		rec.Sub(rec, new(big.Int).SetUint64(chainID*2+35))
	} else if tx.Type() == types.LegacyTxType && v.Uint64() >= 27 {
		rec.Sub(rec, big.NewInt(27))
	}
	out := make([]byte, 65)
	r.FillBytes(out[:32])
	s.FillBytes(out[32:64])
	out[64] = byte(rec.Uint64())
	return out
}

// WrapEthTx builds the Cosmos tx minievm makes of a signed Ethereum tx.
func WrapEthTx(tx *types.Transaction, chainID uint64, pubKey []byte, typ int, msg proto.Message) ([]byte, error) {
	v, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		return nil, err
	}
	memo := ethMemo{Type: typ, GasLimit: tx.Gas()}
	if tx.GasFeeCap() != nil {
		memo.GasFeeCap = tx.GasFeeCap().Uint64()
	}
	if tx.GasTipCap() != nil {
		memo.GasTipCap = tx.GasTipCap().Uint64()
	}
	return engine.EncodeTx([]*anypb.Any{{TypeUrl: engine.TypeURL(msg), Value: v}}, memo.String(),
		[]engine.SignerInfo{{PubKeyType: engine.EthPubKeyType, PubKey: pubKey, Mode: engine.SignModeEthereum, Sequence: tx.Nonce()}},
		engine.Fee{GasLimit: tx.Gas()}, [][]byte{sig65(tx, chainID)})
}

// WrapRawEthTx converts eth_sendRawTransaction bytes into the Cosmos tx the chain executes.
func WrapRawEthTx(raw []byte, chainID uint64, prefix string) ([]byte, *types.Transaction, error) {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return nil, nil, fmt.Errorf("decode ethereum tx: %w", err)
	}
	cid := new(big.Int).SetUint64(chainID)
	signer := types.LatestSignerForChainID(cid)
	if tx.ChainId() != nil && tx.ChainId().Sign() != 0 && tx.ChainId().Cmp(cid) != 0 {
		return nil, nil, fmt.Errorf("invalid chain id %s", tx.ChainId())
	}
	sig := sig65(&tx, chainID)
	pub, err := crypto.Ecrecover(signer.Hash(&tx).Bytes(), sig)
	if err != nil {
		return nil, nil, fmt.Errorf("recover sender: %w", err)
	}
	pk, err := crypto.UnmarshalPubkey(pub)
	if err != nil {
		return nil, nil, err
	}
	from := crypto.PubkeyToAddress(*pk)
	sender := engine.Bech32(prefix, from.Bytes())
	var msg proto.Message
	if tx.To() == nil {
		msg = &evmv1.MsgCreate{Sender: sender, Code: hexutilEncode(tx.Data()), Value: tx.Value().String()}
	} else {
		msg = &evmv1.MsgCall{Sender: sender, ContractAddr: tx.To().Hex(), Input: hexutilEncode(tx.Data()), Value: tx.Value().String()}
	}
	typ := 2
	if tx.Type() == types.LegacyTxType {
		typ = 0
	}
	out, err := WrapEthTx(&tx, chainID, crypto.CompressPubkey(pk), typ, msg)
	return out, &tx, err
}
