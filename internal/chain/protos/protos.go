// Package protos links every generated chain protobuf package into the binary, so that
// importing it (for side effects) fills protoregistry.GlobalTypes with all the message
// types whose Any type URLs we decode. The generated packages below it are produced by
// proto/gen.sh from the .proto files at the repository root; do not edit them by hand.
package protos

import (
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/auth/v1beta1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/abci/v1beta1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/crypto/ed25519"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/crypto/multisig"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/crypto/multisig/v1beta1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/crypto/secp256k1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/signing/v1beta1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/nft_transfer/v1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v2"
	_ "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/channel/v1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/initia/crypto/v1beta1/ethsecp256k1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/miniwasm/tokenfactory/v1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	_ "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
)
