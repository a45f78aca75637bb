package ethereum

import (
	"bytes"
	"maps"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

func sortedKeys[V any](m map[common.Address]V) []common.Address {
	return slices.SortedFunc(maps.Keys(m), func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
}

func sortedAddrs(m map[common.Address]Contract) []common.Address { return sortedKeys(m) }

func sortedStrings(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// MustABI parses a JSON ABI held in the source (a programming error panics at init).
func MustABI(js string) abi.ABI {
	a, err := abi.JSON(strings.NewReader(js))
	if err != nil {
		panic("ethereum: bad ABI: " + err.Error())
	}
	return a
}

// Method finds the method of a by calldata's selector and unpacks its arguments.
func Method(a abi.ABI, input []byte) (*abi.Method, []any, error) {
	if len(input) < 4 {
		return nil, nil, ErrReverted
	}
	m, err := a.MethodById(input[:4])
	if err != nil {
		return nil, nil, ErrReverted
	}
	args, err := m.Inputs.Unpack(input[4:])
	if err != nil {
		return nil, nil, ErrReverted
	}
	return m, args, nil
}

// AddrTopic is an address as an indexed topic.
func AddrTopic(a common.Address) common.Hash { return common.BytesToHash(a.Bytes()) }
