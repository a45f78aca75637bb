package evm

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// ICS721ClassPrefix starts the ICS-721 class id of an ERC-721 contract sent from minievm:
// evm/ + the contract's hex address without 0x (the form InterwovenKit builds,
// initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/wallet/txs/send-nft/tx.evm.ts).
const ICS721ClassPrefix = "evm/"

// ICS721ClassContract parses a class id of the evm/<hex> form.
func ICS721ClassContract(classID string) (common.Address, bool) {
	h, ok := strings.CutPrefix(classID, ICS721ClassPrefix)
	if !ok || len(h) != 40 || !common.IsHexAddress(h) {
		return common.Address{}, false
	}
	return common.HexToAddress(h), true
}

// EscrowICS721 moves ERC-721 tokens of a native contract (class id evm/<contract>) from sender
// to an ICS-721 escrow account, with the ERC-721 Transfer logs; sender must own each token. It
// returns the contract's name and the tokens' URIs for the packet.
func (m *Module) EscrowICS721(env sim.Env, classID string, tokenIDs []string, sender, escrow []byte) (name string, uris []string, err error) {
	return m.moveICS721(env, classID, tokenIDs, common.BytesToAddress(sender), common.BytesToAddress(escrow))
}

// RefundICS721 gives escrowed tokens back to their sender (a failed or timed-out send).
func (m *Module) RefundICS721(env sim.Env, classID string, tokenIDs []string, escrow, sender []byte) error {
	_, _, err := m.moveICS721(env, classID, tokenIDs, common.BytesToAddress(escrow), common.BytesToAddress(sender))
	return err
}

func (m *Module) moveICS721(env sim.Env, classID string, tokenIDs []string, from, to common.Address) (string, []string, error) {
	x, err := m.newExec(env)
	if err != nil {
		return "", nil, err
	}
	addr, ok := ICS721ClassContract(classID)
	c, found := getContract(x.kv, addr)
	if !ok || !found || c.Kind != "erc721" {
		return "", nil, fmt.Errorf("class %s: no ERC-721 contract: %w", classID, ErrExecutionReverted)
	}
	// Every token is checked before any moves, so a refused send changes nothing.
	uris := make([]string, len(tokenIDs))
	ids := make([]*big.Int, len(tokenIDs))
	toks := make([]token, len(tokenIDs))
	for i, s := range tokenIDs {
		id, ok := new(big.Int).SetString(s, 10)
		if !ok || id.Sign() < 0 || id.BitLen() > 256 {
			return "", nil, fmt.Errorf("token id %q is not a uint256: %w", s, ErrExecutionReverted)
		}
		t, ok := getToken(x.kv, addr, id)
		if !ok || t.Owner != key(from) {
			return "", nil, fmt.Errorf("token %s of %s is not held by %s: %w", s, addr.Hex(), from.Hex(), ErrExecutionReverted)
		}
		ids[i], toks[i], uris[i] = id, t, t.URI
	}
	for i, id := range ids {
		t := toks[i]
		t.Owner, t.Approved = key(to), ""
		b, _ := json.Marshal(t)
		x.kv.Set(tokenKey(addr, id), b)
		addNFTCount(x.kv, addr, from, -1)
		addNFTCount(x.kv, addr, to, 1)
		x.logs = append(x.logs, ethLog{Address: addr, Topics: []common.Hash{topicTransfer, addrTopic(from), addrTopic(to), word(id)}})
	}
	env.Emit(evmEvent(x.logs))
	return c.Name, uris, nil
}
