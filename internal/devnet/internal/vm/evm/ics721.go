package evm

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// ICS721Token is one token an ICS-721 packet brings: its id (a decimal uint256 on minievm,
// whose ERC-721 token ids are numbers) and URI.
type ICS721Token struct {
	ID  string
	URI string
}

func ics721Key(class string) string { return "ics721/" + class }

// ICS721Contract returns the ERC-721 contract holding a received voucher class (kv is the
// module's store).
func ICS721Contract(kv sim.KVReader, class string) (common.Address, bool) {
	b, ok := kv.Get(ics721Key(class))
	if !ok {
		return common.Address{}, false
	}
	return common.HexToAddress(string(b)), true
}

// ReceiveICS721 mints tokens of a class received over ICS-721 as minievm does: the first
// receive deploys an ERC-721 contract from creator (the nft-transfer module account) whose
// name() and symbol() are the voucher class (ibc/…), and each token is minted to receiver with
// the ERC-721 Transfer log from the zero address, in the tx's `evm` event.
func (m *Module) ReceiveICS721(env sim.Env, creator []byte, class, classURI string, tokens []ICS721Token, receiver []byte) error {
	x, err := m.newExec(env)
	if err != nil {
		return err
	}
	owner := common.BytesToAddress(creator)
	addr, ok := ICS721Contract(x.kv, class)
	var c contract
	if ok {
		if c, ok = getContract(x.kv, addr); !ok || c.Kind != "erc721" {
			return fmt.Errorf("ics721 class %s: contract %s is no ERC-721", class, addr.Hex())
		}
	} else {
		addr = x.nextAddress(owner)
		c = contract{Kind: "erc721", Name: class, Symbol: class, Owner: key(owner)}
		x.kv.Set(ics721Key(class), []byte(addr.Hex()))
		x.env.EnsureAccount(addr.Bytes())
		x.creat = append(x.creat, addr)
	}
	to := common.BytesToAddress(receiver)
	for _, t := range tokens {
		id, ok := new(big.Int).SetString(t.ID, 10)
		if !ok || id.Sign() < 0 || id.BitLen() > 256 {
			return fmt.Errorf("token id %q is not a uint256", t.ID)
		}
		if _, exists := getToken(x.kv, addr, id); exists {
			return fmt.Errorf("token %s of %s already exists", t.ID, class)
		}
		b, _ := json.Marshal(token{Owner: key(to), URI: t.URI})
		x.kv.Set(tokenKey(addr, id), b)
		addNFTCount(x.kv, addr, to, 1)
		c.Minted++
		x.logs = append(x.logs, ethLog{Address: addr, Topics: []common.Hash{topicTransfer, addrTopic(common.Address{}), addrTopic(to), word(id)}})
	}
	putContract(x.kv, addr, c)
	for _, a := range x.creat {
		env.Emit(sim.Event{Type: "contract_created", Attributes: []sim.Attribute{attr("contract", a.Hex())}})
	}
	env.Emit(evmEvent(x.logs))
	return nil
}
