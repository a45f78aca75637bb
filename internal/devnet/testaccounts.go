package devnet

import (
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
)

// TestMnemonic is the BIP-39 mnemonic of the wallet-importable test accounts (the well-known
// development mnemonic Anvil and Hardhat also use). Never hold real funds with it.
const TestMnemonic = "test test test test test test test test test test test junk"

// BIP-44 coin types of the test accounts' paths.
const (
	// CoinTypeEth is what Initia's wallets derive on every Initia chain: initia.js'
	// MnemonicKey defaults to coin type 60 with eth_secp256k1 keys along
	// m/44'/60'/<account>'/0/<index> (initia-labs/initia.js@22b7c1f:src/key/MnemonicKey.ts,
	// lines 7, 39-40, 86), InterwovenKit signs with the same key, and MetaMask derives
	// m/44'/60'/0'/0/i on the EVM rollup. Account 0 of TestMnemonic is therefore
	// init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz = 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266.
	CoinTypeEth = 60
	// CoinTypeCosmos is the Cosmos Hub's coin type (Keplr and gaiad keys on cosmoshub).
	CoinTypeCosmos = 118
)

// TestAccountPath is test account i's derivation path on a chain: the path a wallet that
// imports TestMnemonic derives there (coin type 60 on Initia chains, 118 on chains with
// plain Cosmos keys), so the printed mnemonic opens funded accounts without any setting.
func TestAccountPath(s ChainSpec, i int) string {
	return fmt.Sprintf("m/44'/%d'/0'/0/%d", testCoinType(s), i)
}

func testCoinType(s ChainSpec) int {
	if s.CosmosKeys {
		return CoinTypeCosmos
	}
	return CoinTypeEth
}

// testKey derives test account i for a chain: eth_secp256k1 at coin type 60 on Initia
// chains (so one account has one address on all of them, the one MetaMask shows on the EVM
// rollup), secp256k1 at coin type 118 on external Cosmos chains.
func testKey(s ChainSpec, i int) (*txcodec.PrivKey, error) {
	typ := txcodec.EthSecp256k1
	if s.CosmosKeys {
		typ = txcodec.Secp256k1
	}
	return txcodec.PrivKeyFromMnemonic(typ, TestMnemonic, TestAccountPath(s, i))
}

// TestAccount is one funded test account: per chain, the path a wallet derives it at, its
// address and genesis balances, and on EVM rollups the form MetaMask imports.
type TestAccount struct {
	Index     int                   `json:"index"`
	HDPaths   map[string]string     `json:"hd_paths"`
	KeyTypes  map[string]string     `json:"key_types"`
	Addresses map[string]string     `json:"addresses"`
	Balances  map[string][]CoinJSON `json:"balances"`
	// EVM lists the account on each EVM rollup as Anvil prints its accounts: the 0x address
	// and the private key, which MetaMask's "import account" takes as they are.
	EVM map[string]EVMAccount `json:"evm,omitempty"`
}

// EVMAccount is a test account as an Ethereum wallet sees it.
type EVMAccount struct {
	Address    string `json:"address"`     // EIP-55 checksummed
	PrivateKey string `json:"private_key"` // 0x-prefixed hex
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
		a := TestAccount{Index: i, HDPaths: map[string]string{}, KeyTypes: map[string]string{},
			Addresses: map[string]string{}, Balances: map[string][]CoinJSON{}}
		for _, s := range n.cfg.Chains {
			k, err := testKey(s, i)
			if err != nil {
				return nil, err
			}
			a.HDPaths[s.ChainID] = TestAccountPath(s, i)
			a.KeyTypes[s.ChainID] = k.Type().String()
			a.Addresses[s.ChainID] = n.Address(s.ChainID, k)
			for _, c := range append(userCoins(s), n.cfg.lzTestCoins(s)...) {
				a.Balances[s.ChainID] = append(a.Balances[s.ChainID], CoinJSON{Denom: c.Denom, Amount: c.Amount.String()})
			}
			if s.Kind == KindEVM {
				if a.EVM == nil {
					a.EVM = map[string]EVMAccount{}
				}
				a.EVM[s.ChainID] = EVMAccount{Address: common.BytesToAddress(k.Address()).Hex(),
					PrivateKey: "0x" + hex.EncodeToString(k.Bytes())}
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// ChainIDs are the chains an account is listed on, sorted.
func (a TestAccount) ChainIDs() []string {
	ids := make([]string, 0, len(a.Addresses))
	for id := range a.Addresses {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
