package evm

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// The ABI the simulated contracts answer: ERC-20 (with owner mint/burn, as minievm's
// factory-made ERC-20s), ERC-721 (ICS721ERC721's mint(address,uint256,string)), the ERC-20
// factory's createERC20, and the ERC20Wrapper's toLocal (3 and 4 arguments; go-ethereum names
// the second "toLocal0"), toRemote, toRemoteAndOPWithdraw and toRemoteAndIBCTransfer (each overload; go-ethereum
// suffixes the later ones 0, 1) and the IBC callbacks ibc_ack / ibc_timeout.
const abiJSON = `[
{"type":"function","name":"name","inputs":[],"outputs":[{"type":"string"}],"stateMutability":"view"},
{"type":"function","name":"symbol","inputs":[],"outputs":[{"type":"string"}],"stateMutability":"view"},
{"type":"function","name":"decimals","inputs":[],"outputs":[{"type":"uint8"}],"stateMutability":"view"},
{"type":"function","name":"totalSupply","inputs":[],"outputs":[{"type":"uint256"}],"stateMutability":"view"},
{"type":"function","name":"owner","inputs":[],"outputs":[{"type":"address"}],"stateMutability":"view"},
{"type":"function","name":"balanceOf","inputs":[{"name":"a","type":"address"}],"outputs":[{"type":"uint256"}],"stateMutability":"view"},
{"type":"function","name":"allowance","inputs":[{"name":"o","type":"address"},{"name":"s","type":"address"}],"outputs":[{"type":"uint256"}],"stateMutability":"view"},
{"type":"function","name":"ownerOf","inputs":[{"name":"id","type":"uint256"}],"outputs":[{"type":"address"}],"stateMutability":"view"},
{"type":"function","name":"tokenURI","inputs":[{"name":"id","type":"uint256"}],"outputs":[{"type":"string"}],"stateMutability":"view"},
{"type":"function","name":"getApproved","inputs":[{"name":"id","type":"uint256"}],"outputs":[{"type":"address"}],"stateMutability":"view"},
{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"v","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"approve","inputs":[{"name":"s","type":"address"},{"name":"v","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"transferFrom","inputs":[{"name":"f","type":"address"},{"name":"t","type":"address"},{"name":"v","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"safeTransferFrom","inputs":[{"name":"f","type":"address"},{"name":"t","type":"address"},{"name":"id","type":"uint256"}],"outputs":[]},
{"type":"function","name":"mint","inputs":[{"name":"to","type":"address"},{"name":"v","type":"uint256"}],"outputs":[]},
{"type":"function","name":"mintNFT","inputs":[{"name":"to","type":"address"},{"name":"id","type":"uint256"},{"name":"uri","type":"string"}],"outputs":[]},
{"type":"function","name":"burn","inputs":[{"name":"v","type":"uint256"}],"outputs":[]},
{"type":"function","name":"createERC20","inputs":[{"name":"n","type":"string"},{"name":"s","type":"string"},{"name":"d","type":"uint8"}],"outputs":[{"type":"address"}]},
{"type":"function","name":"sudoTransfer","inputs":[{"name":"f","type":"address"},{"name":"t","type":"address"},{"name":"v","type":"uint256"}],"outputs":[]},
{"type":"function","name":"toLocal","inputs":[{"name":"receiver","type":"address"},{"name":"remoteDenom","type":"string"},{"name":"remoteDecimals","type":"uint8"}],"outputs":[]},
{"type":"function","name":"toLocal","inputs":[{"name":"receiver","type":"address"},{"name":"remoteDenom","type":"string"},{"name":"remoteAmount","type":"uint256"},{"name":"remoteDecimals","type":"uint8"}],"outputs":[]},
{"type":"function","name":"toRemote","inputs":[{"name":"receiver","type":"address"},{"name":"localDenom","type":"string"},{"name":"localAmount","type":"uint256"}],"outputs":[{"type":"address"},{"type":"uint256"},{"type":"uint8"}]},
{"type":"function","name":"toRemoteAndOPWithdraw","inputs":[{"name":"receiver","type":"string"},{"name":"localDenom","type":"string"},{"name":"localAmount","type":"uint256"}],"outputs":[]},
{"type":"function","name":"toRemoteAndOPWithdraw","inputs":[{"name":"receiver","type":"string"},{"name":"localDenom","type":"string"},{"name":"localAmount","type":"uint256"},{"name":"gasLimit","type":"uint64"}],"outputs":[]},
{"type":"function","name":"toRemoteAndIBCTransfer","inputs":[{"name":"localDenom","type":"string"},{"name":"localAmount","type":"uint256"},{"name":"channel","type":"string"},{"name":"receiver","type":"string"},{"name":"timeout","type":"uint256"}],"outputs":[]},
{"type":"function","name":"toRemoteAndIBCTransfer","inputs":[{"name":"localDenom","type":"string"},{"name":"localAmount","type":"uint256"},{"name":"channel","type":"string"},{"name":"receiver","type":"string"},{"name":"timeout","type":"uint256"},{"name":"memo","type":"string"}],"outputs":[]},
{"type":"function","name":"toRemoteAndIBCTransfer","inputs":[{"name":"localDenom","type":"string"},{"name":"localAmount","type":"uint256"},{"name":"channel","type":"string"},{"name":"receiver","type":"string"},{"name":"timeout","type":"uint256"},{"name":"memo","type":"string"},{"name":"gasLimit","type":"uint64"}],"outputs":[]},
{"type":"function","name":"ibc_ack","inputs":[{"name":"callbackId","type":"uint64"},{"name":"success","type":"bool"}],"outputs":[]},
{"type":"function","name":"ibc_timeout","inputs":[{"name":"callbackId","type":"uint64"}],"outputs":[]},
{"type":"function","name":"erc721Args","inputs":[{"name":"n","type":"string"},{"name":"s","type":"string"}],"outputs":[]},
{"type":"function","name":"erc20Args","inputs":[{"name":"n","type":"string"},{"name":"s","type":"string"},{"name":"d","type":"uint8"}],"outputs":[]}
]`

var contractABI = mustABI()

func mustABI() abi.ABI {
	a, err := abi.JSON(strings.NewReader(abiJSON))
	if err != nil {
		// the ABI is a constant of this file; failing here is a programming error caught by every test
		panic(fmt.Sprintf("evm: contract ABI: %v", err))
	}
	return a
}

// mintNFTSelector is mint(address,uint256,string), the ICS721ERC721 mint; the ABI names it
// mintNFT only because Go's ABI table needs unique names.
var mintNFTSelector = crypto.Keccak256([]byte("mint(address,uint256,string)"))[:4]

// Event topics.
var (
	topicTransfer     = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	topicApproval     = crypto.Keccak256Hash([]byte("Approval(address,address,uint256)"))
	topicOwnership    = crypto.Keccak256Hash([]byte("OwnershipTransferred(address,address)"))
	topicERC20Created = crypto.Keccak256Hash([]byte("ERC20Created(address,address)"))
)

func selector(name string) []byte {
	if name == "mintNFT" {
		return mintNFTSelector
	}
	return contractABI.Methods[name].ID
}

// Pack ABI-encodes a call of one of the simulated contracts' functions (for traffic and tests).
func Pack(name string, args ...any) ([]byte, error) {
	m, ok := contractABI.Methods[name]
	if !ok {
		return nil, fmt.Errorf("unknown function %s", name)
	}
	in, err := m.Inputs.Pack(args...)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", name, err)
	}
	return append(append([]byte(nil), selector(name)...), in...), nil
}

// methodBySelector finds the function of calldata.
func methodBySelector(input []byte) (string, []any, error) {
	if len(input) < 4 {
		return "", nil, fmt.Errorf("no selector")
	}
	sel := input[:4]
	for name, m := range contractABI.Methods {
		if string(selector(name)) == string(sel) {
			args, err := m.Inputs.Unpack(input[4:])
			if err != nil {
				return "", nil, fmt.Errorf("unpack %s: %w", name, err)
			}
			return name, args, nil
		}
	}
	return "", nil, fmt.Errorf("unknown selector %x", sel)
}

func packOut(name string, vals ...any) []byte {
	out, err := contractABI.Methods[name].Outputs.Pack(vals...)
	if err != nil {
		return nil
	}
	return out
}

func word(v *big.Int) common.Hash { return common.BigToHash(v) }

func addrTopic(a common.Address) common.Hash { return common.BytesToHash(a.Bytes()) }

// ERC721Code is the creation code MsgCreate takes for a simulated ERC-721: a Solidity-like
// prefix, then a marker and the ABI-encoded (name, symbol).
func ERC721Code(name, symbol string) ([]byte, error) {
	args, err := contractABI.Methods["erc721Args"].Inputs.Pack(name, symbol)
	if err != nil {
		return nil, err
	}
	return append(append(append([]byte(nil), codePrefix...), markerERC721...), args...), nil
}

// ERC20Code is the creation code for a simulated ERC-20 (name, symbol, decimals).
func ERC20Code(name, symbol string, decimals uint8) ([]byte, error) {
	args, err := contractABI.Methods["erc20Args"].Inputs.Pack(name, symbol, decimals)
	if err != nil {
		return nil, err
	}
	return append(append(append([]byte(nil), codePrefix...), markerERC20...), args...), nil
}

var (
	codePrefix   = common.FromHex("0x608060405234801561000f575f80fd5b50")
	markerERC721 = []byte("rollgate:erc721:")
	markerERC20  = []byte("rollgate:erc20::")
)
