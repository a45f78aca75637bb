package evm

import (
	"encoding/hex"
	"testing"
)

// TestPseudoTxHash: a Cosmos-only tx shows in the Ethereum view as an unsigned legacy tx whose
// input is the Cosmos tx hash; its hash is that tx's hash (checked against the real minievm's
// answer for the fixture's height-3 bank send).
func TestPseudoTxHash(t *testing.T) {
	b, _ := hex.DecodeString("F064CD3FCB0431F6869848082A50105C697D1F7970CF85F1FF676790F872D5FE")
	if got := pseudoTx(b).Hash().Hex(); got != "0x8f8f200176e306cdee3c7b0cd332ca0cc499eb537706940580b0ab67875cb1ab" {
		t.Fatalf("pseudo tx hash %s", got)
	}
}
