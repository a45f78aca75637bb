package devnet

import "github.com/rollgate/rollgate/internal/devnet/vm/evm"

func evmContract(_ *Chain, denom string) string { return evm.DenomContract(denom).Hex() }
