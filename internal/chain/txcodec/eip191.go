package txcodec

import "strconv"

// eip191Prefix is the EIP-191 "personal_sign" envelope (version 0x45).
const eip191Prefix = "\x19Ethereum Signed Message:\n"

// EIP191SignBytes wraps the amino StdSignDoc as SIGN_MODE_EIP_191 signs it: the EIP-191
// envelope, the decimal byte length, then the document (Initia's cosmos-sdk fork,
// x/auth/tx SignModeEIP191Handler). An eth_secp256k1 key signs keccak256 of these bytes,
// which is exactly what a wallet's personal_sign of the document computes
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/data/signer.ts:143-151,
// initia-labs/initia.js@a60dc6b:src/key/key.ts:134-152).
func EIP191SignBytes(aminoSignDoc []byte) []byte {
	out := make([]byte, 0, len(eip191Prefix)+8+len(aminoSignDoc))
	out = append(out, eip191Prefix...)
	out = strconv.AppendInt(out, int64(len(aminoSignDoc)), 10)
	return append(out, aminoSignDoc...)
}
