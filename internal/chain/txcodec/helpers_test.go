package txcodec

import "github.com/decred/dcrd/dcrec/secp256k1/v4"

func highS(sig []byte) []byte {
	var s secp256k1.ModNScalar
	s.SetByteSlice(sig[32:64])
	s.Negate()
	out := append([]byte(nil), sig[:32]...)
	b := s.Bytes()
	return append(out, b[:]...)
}
