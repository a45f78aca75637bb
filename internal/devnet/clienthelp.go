package devnet

import (
	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
)

// What a client of the devnet computes the way a wallet or an SDK does (addresses of the
// objects it creates, voucher names, call data), so the product's end-to-end tests can
// predict and check it without reaching into the VMs.

// MoveAddress renders raw address bytes (an account's 20, an object's 32) as Move prints an
// address: 0x and lowercase hex without leading zeros.
func MoveAddress(b []byte) string { return move.AccAddr(b).String() }

// ParseMoveAddress reads a "0x…" Move address (leading zeros optional) into its 32 bytes.
func ParseMoveAddress(s string) ([]byte, error) {
	a, err := move.ParseAddr(s)
	if err != nil {
		return nil, err
	}
	return a[:], nil
}

// MoveCollectionAddress is the object address (32 bytes) of the collection a creator account
// (raw bytes) creates under a name.
func MoveCollectionAddress(creator []byte, name string) []byte {
	a := move.CollectionAddr(move.AccAddr(creator), name)
	return a[:]
}

// MoveNFTAddress is the object address (32 bytes) of token tokenID of a creator's collection.
func MoveNFTAddress(creator []byte, collection, tokenID string) []byte {
	a := move.NftAddr(move.AccAddr(creator), collection, tokenID)
	return a[:]
}

// MoveVoucherNFTAddress is the object a Move chain's nft-transfer module mints token tokenID
// of a received voucher class as.
func MoveVoucherNFTAddress(voucher, tokenID string) []byte {
	return MoveNFTAddress(address.ModuleAccount(ibc.NFTModule), voucher, tokenID)
}

// NFTVoucherClass names a class received over ICS-721 on dstChannel of the receiving chain's
// nft-transfer port: the prefixed path when the chain keeps path names (Wasm), else ibc/ and
// the hash of it.
func NFTVoucherClass(dstChannel, classID string, pathNames bool) string {
	return ibc.VoucherClass(ibc.NFTPort, dstChannel, classID, pathNames)
}

// NFTEscrowAddress is the account that holds NFTs sent out through a channel of the
// nft-transfer port.
func NFTEscrowAddress(channel string) []byte { return ibc.NFTEscrowAddress(ibc.NFTPort, channel) }

// EVMCallData ABI-encodes a call of one of the EVM rollup's built-in contracts' functions
// (ERC-20, ERC-721: "ownerOf", "mintNFT", …).
func EVMCallData(function string, args ...any) ([]byte, error) { return evm.Pack(function, args...) }

// ERC721Code is the creation code of the EVM rollup's ERC-721 contract with a name and symbol.
func ERC721Code(name, symbol string) ([]byte, error) { return evm.ERC721Code(name, symbol) }

// EVMWrapperAddress is the EVM rollup's ERC20Wrapper (toLocal, toRemote, …; EVMCallData
// encodes its calls), the contract that sends the tokens it unwraps.
func EVMWrapperAddress() []byte { return evm.WrapperAddress.Bytes() }
