package bridge

import (
	"fmt"
	"math/big"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
)

// Indices of the bot keys in the network seed's key sequence, far above the genesis
// accounts so traffic never signs with them.
const (
	RelayerKeyIndex  = 1000
	ExecutorKeyIndex = 1001
)

// BotKeys derives the relayer and bridge-executor keys of a network seed (eth keys unless
// the chain signs with plain Cosmos keys). The same seed gives the same bots everywhere.
func BotKeys(seed uint64, cosmosKeys bool) (relayerKey, executorKey *engine.Key, err error) {
	relayerKey, err = engine.DeriveKey(seed, RelayerKeyIndex, !cosmosKeys)
	if err != nil {
		return nil, nil, fmt.Errorf("relayer key: %w", err)
	}
	executorKey, err = engine.DeriveKey(seed, ExecutorKeyIndex, !cosmosKeys)
	if err != nil {
		return nil, nil, fmt.Errorf("executor key: %w", err)
	}
	return relayerKey, executorKey, nil
}

// BotAccounts are the genesis accounts the bots need on a chain (append them to
// engine.Config.ExtraAccounts): they must exist to sign, and pay fees in feeDenom.
func BotAccounts(feeDenom string, keys ...*engine.Key) []engine.GenesisAccount {
	amt, _ := new(big.Int).SetString("1000000000000000000000", 10)
	out := make([]engine.GenesisAccount, 0, len(keys))
	for _, k := range keys {
		out = append(out, engine.GenesisAccount{Address: k.Address(), Coins: []engine.Coin{{Denom: feeDenom, Amount: new(big.Int).Set(amt)}}})
	}
	return out
}
