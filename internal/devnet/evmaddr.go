package devnet

import "github.com/rollgate/rollgate/internal/devnet/evm"

func evmContract(_ *Chain, denom string) string { return evm.DenomContract(denom).Hex() }
