package address

import (
	"crypto/sha3"
	"encoding/hex"
	"strings"
)

// moveStd is Move's standard address 0x1 as 32 bytes.
var moveStd = func() []byte { b := make([]byte, 32); b[31] = 1; return b }()

// MoveCoinMetadata is the metadata object of a bank denom on an Initia Move chain: the object
// 0x1 names after the denom (object::create_named_object: sha3-256(0x1 ‖ denom ‖ 0xFE)), or,
// for move/<64 hex>, the object the denom names.
func MoveCoinMetadata(denom string) []byte {
	if h, ok := strings.CutPrefix(denom, "move/"); ok && len(h) == 64 {
		if b, err := hex.DecodeString(h); err == nil {
			return b
		}
	}
	s := sha3.New256()
	s.Write(moveStd)
	s.Write([]byte(denom))
	s.Write([]byte{0xFE})
	return s.Sum(nil)
}
