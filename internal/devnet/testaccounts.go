package devnet

import (
	"fmt"

	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/engine"
)

// TestMnemonic is the BIP-39 mnemonic of the wallet-importable test accounts (the well-known
// development mnemonic Anvil and Hardhat also use). Never hold real funds with it.
const TestMnemonic = "test test test test test test test test test test test junk"

// TestAccountPath is account i's derivation path: the standard Cosmos path, coin type 118.
func TestAccountPath(i int) string { return fmt.Sprintf("m/44'/118'/0'/0/%d", i) }

// testKey derives test account i for a chain: eth_secp256k1 on Initia chains (so one account
// has one address on all of them), secp256k1 on external Cosmos chains.
func testKey(s ChainSpec, i int) (*txcodec.PrivKey, error) {
	typ := txcodec.EthSecp256k1
	if s.CosmosKeys {
		typ = txcodec.Secp256k1
	}
	return txcodec.PrivKeyFromMnemonic(typ, TestMnemonic, TestAccountPath(i))
}

// TestAccount is one funded test account: its address and genesis balances per chain.
type TestAccount struct {
	Index     int                   `json:"index"`
	Path      string                `json:"hd_path"`
	Addresses map[string]string     `json:"addresses"`
	Balances  map[string][]CoinJSON `json:"balances"`
}

// CoinJSON is a coin as the chains' REST renders it.
type CoinJSON struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

// testAccounts are the genesis balances of Config.TestAccounts accounts on a chain (the same
// coins as the users').
func testAccounts(n int, s ChainSpec) ([]engine.GenesisAccount, error) {
	var out []engine.GenesisAccount
	for i := range n {
		k, err := testKey(s, i)
		if err != nil {
			return nil, err
		}
		out = append(out, engine.GenesisAccount{Address: k.Address(), Coins: userCoins(s)})
	}
	return out, nil
}

// TestAccounts lists the funded test accounts (Config.TestAccounts of them).
func (n *Network) TestAccounts() ([]TestAccount, error) {
	var out []TestAccount
	for i := range n.cfg.TestAccounts {
		a := TestAccount{Index: i, Path: TestAccountPath(i), Addresses: map[string]string{}, Balances: map[string][]CoinJSON{}}
		for _, s := range n.cfg.Chains {
			k, err := testKey(s, i)
			if err != nil {
				return nil, err
			}
			a.Addresses[s.ChainID] = n.Address(s.ChainID, k)
			for _, c := range userCoins(s) {
				a.Balances[s.ChainID] = append(a.Balances[s.ChainID], CoinJSON{Denom: c.Denom, Amount: c.Amount.String()})
			}
		}
		out = append(out, a)
	}
	return out, nil
}
