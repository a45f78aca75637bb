package engine

// The generated upstream types register themselves here, so decoded messages are the
// concrete types modules type-assert on; the local dynamic registry only covers gaps.
import (
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/crypto/secp256k1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/initia/crypto/v1beta1/ethsecp256k1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
)
