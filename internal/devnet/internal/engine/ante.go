package engine

// Ante: the checks a tx passes before its messages run (signatures, sequences, signers,
// gas limit), in CheckTx and again in DeliverTx.

import (
	"encoding/hex"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// anted is what the ante checks established about a tx: its messages, decoded, and each
// signer's address and account (in signer order), so delivery does not derive them again.
type anted struct {
	msgs    []proto.Message
	signers [][]byte
	accs    []account
}

// anteMode is where the ante checks run: DeliverTx, CheckTx (the mempool's pending
// sequences count) or a simulation (Service/Simulate).
type anteMode int

const (
	modeDeliver anteMode = iota
	modeCheck
	modeSimulate
)

// ante verifies signatures and sequences (and, when checking, the mempool's pending sequences).
func (c *Chain) ante(v view, tx *Tx, check bool) (anted, *sim.CodedError) {
	mode := modeDeliver
	if check {
		mode = modeCheck
	}
	return c.anteIn(v, tx, mode)
}

func (c *Chain) anteIn(v view, tx *Tx, mode anteMode) (anted, *sim.CodedError) {
	var a anted
	cerr := c.anteChecks(v, tx, mode, &a)
	return a, cerr
}

// anteChecks are the SDK's ante decorators. In a simulation, as in x/auth's ante with
// simulate set, signatures are not verified, a signer's key need not match its address (a
// wallet simulates with whatever key it has at hand: InterwovenKit sends a plain secp256k1 key
// for an eth_secp256k1 account, packages/interwovenkit-react/src/data/tx.ts simulateTx), the
// signers are the messages' and no gas limit is set; sequences are still checked.
func (c *Chain) anteChecks(v view, tx *Tx, mode anteMode, out *anted) *sim.CodedError {
	check, simulate := mode == modeCheck, mode == modeSimulate
	if len(tx.Signers) == 0 || len(tx.Signers) != len(tx.Signatures) {
		return sdkErr(codeUnauthorized, fmt.Sprintf("invalid number of signatures; expected: %d, got %d: unauthorized", len(tx.Signers), len(tx.Signatures)))
	}
	if tx.TimeoutHeight != 0 && int64(tx.TimeoutHeight) <= c.height {
		return sdkErr(codeTxTimeoutHeight, fmt.Sprintf("block height: %d, timeout height: %d: tx timeout height", c.height+1, tx.TimeoutHeight))
	}
	msgs, err := c.decodeMsgs(tx)
	if err != nil {
		return sdkErr(codeTxDecode, err.Error()+": tx parse error")
	}
	out.msgs = msgs
	var msgSigners [][]byte
	if simulate {
		if msgSigners, err = c.messageSigners(msgs); err != nil {
			return sdkErr(codeInvalidAddress, err.Error()+": invalid address")
		}
	}
	for i, si := range tx.Signers {
		var addr []byte
		if i < len(msgSigners) {
			addr = msgSigners[i]
		} else if addr, err = AddressOf(si.PubKeyType, si.PubKey); err != nil {
			return sdkErr(codeInvalidPubKey, err.Error()+": invalid pubkey")
		}
		acc, ok := getAccount(v, addr)
		if !ok {
			return sdkErr(codeUnknownAddress, fmt.Sprintf("account %s not found: unknown address", Bech32(c.cfg.Bech32Prefix, addr)))
		}
		out.signers, out.accs = append(out.signers, addr), append(out.accs, acc)
		want := acc.Sequence
		if check {
			if p, ok := c.pending[hex.EncodeToString(addr)]; ok && p > want {
				want = p
			}
		}
		if simulate {
			// Simulated against the committed state, so a wallet that reads the committed
			// sequence and one that counts its txs still in the mempool both pass.
			if p, ok := c.pending[hex.EncodeToString(addr)]; ok && si.Sequence > want && si.Sequence <= p {
				want = si.Sequence
			}
		}
		if si.Sequence != want {
			return sdkErr(codeWrongSequence, fmt.Sprintf("account sequence mismatch, expected %d, got %d: incorrect account sequence", want, si.Sequence))
		}
		if simulate {
			continue
		}
		switch si.Mode {
		case SignModeDirect:
			sb, err := txcodec.DirectSignBytes(tx.BodyBytes, tx.AuthInfoBytes, c.cfg.ChainID, acc.Number)
			if err != nil || !VerifyDirect(si.PubKeyType, si.PubKey, sb, tx.Signatures[i]) {
				return sdkErr(codeUnauthorized, fmt.Sprintf("signature verification failed; please verify account number (%d) and chain-id (%s): unauthorized", acc.Number, c.cfg.ChainID))
			}
		case signModeLegacyAminoJSON, signModeEIP191:
			if err := c.verifyAmino(tx, acc.Number); err != nil {
				return sdkErr(codeUnauthorized, fmt.Sprintf("signature verification failed; please verify account number (%d) and chain-id (%s): unauthorized", acc.Number, c.cfg.ChainID))
			}
		default:
			if c.cfg.Verifier == nil {
				return sdkErr(codeUnauthorized, fmt.Sprintf("unsupported sign mode %d: unauthorized", si.Mode))
			}
			if err := c.cfg.Verifier(c.cfg.ChainID, tx, i, msgs); err != nil {
				return sdkErr(codeUnauthorized, fmt.Sprintf("signature verification failed; %v: unauthorized", err))
			}
		}
	}
	if simulate {
		return nil
	}
	// every message signer must have signed
	for _, m := range msgs {
		if s := msgSigner(m); s != "" {
			addr, err := ParseAddress(c.cfg.Bech32Prefix, s)
			if err != nil {
				return sdkErr(codeInvalidAddress, err.Error()+": invalid address")
			}
			if !c.signedBy(tx, addr) {
				return sdkErr(codeInvalidPubKey, fmt.Sprintf("pubKey does not match signer address %s with signer index: 0: invalid pubkey", s))
			}
		}
	}
	if tx.Fee.GasLimit == 0 {
		return sdkErr(codeOutOfGas, "out of gas in location: txSize; gasWanted: 0, gasUsed: 0: out of gas")
	}
	return nil
}

// messageSigners are the distinct signers of the messages, in order (the SDK's GetSigners).
func (c *Chain) messageSigners(msgs []proto.Message) ([][]byte, error) {
	var out [][]byte
	seen := map[string]bool{}
	for _, m := range msgs {
		s := msgSigner(m)
		if s == "" {
			continue
		}
		addr, err := ParseAddress(c.cfg.Bech32Prefix, s)
		if err != nil {
			return nil, err
		}
		if !seen[string(addr)] {
			seen[string(addr)] = true
			out = append(out, addr)
		}
	}
	return out, nil
}

func (c *Chain) signedBy(tx *Tx, addr []byte) bool {
	for _, si := range tx.Signers {
		a, err := AddressOf(si.PubKeyType, si.PubKey)
		if err == nil && string(a) == string(addr) {
			return true
		}
	}
	return false
}

func (c *Chain) decodeMsgs(tx *Tx) ([]proto.Message, error) {
	out := make([]proto.Message, 0, len(tx.Msgs))
	for _, a := range tx.Msgs {
		m, err := DecodeAny(a.TypeUrl, a.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

const (
	signModeLegacyAminoJSON = 127
	// signModeEIP191 is Initia's SIGN_MODE_EIP_191 (minievm accepts it,
	// initia-labs/minievm@3470dff:app/ante/verify.go); txcodec verifies it with the amino
	// modes: an EIP-191 envelope around the same StdSignDoc.
	signModeEIP191 = 191
)

// verifyAmino checks SIGN_MODE_LEGACY_AMINO_JSON and SIGN_MODE_EIP_191 signatures through txcodec, which renders the
// amino JSON sign doc of every message type it knows.
func (c *Chain) verifyAmino(tx *Tx, _ uint64) error {
	d, err := txcodec.Decode(tx.Raw)
	if err != nil {
		return err
	}
	v := heightView{c.st, c.height}
	return txcodec.VerifySignatures(d, c.cfg.ChainID, func(addr []byte) (txcodec.Account, bool) {
		a, ok := getAccount(v, addr)
		if !ok {
			return txcodec.Account{}, false
		}
		// the sequence was checked by the ante handler (mempool included); echo the signed one
		for _, si := range tx.Signers {
			if sa, err := AddressOf(si.PubKeyType, si.PubKey); err == nil && string(sa) == string(addr) {
				return txcodec.Account{Number: a.Number, Sequence: si.Sequence}, true
			}
		}
		return txcodec.Account{Number: a.Number, Sequence: a.Sequence}, true
	})
}

// msgSigner finds the signer field of a message by the SDK's conventional names.
func msgSigner(m proto.Message) string {
	for _, f := range []string{"sender", "from_address", "signer", "authority", "creator", "executor", "relayer", "admin"} {
		if s := stringField(m, f); s != "" {
			return s
		}
	}
	return ""
}
