package devnet

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
)

// Key returns the i-th funded genesis key of a chain as a txcodec key, so a client (test,
// router e2e, CLI) can sign its own transactions the way a wallet does. The same index
// gives the same key on every Initia chain of the network (eth_secp256k1); external Cosmos
// chains use plain secp256k1 keys.
func (n *Network) Key(chainID string, i int) (*txcodec.PrivKey, error) {
	c, ok := n.Chain(chainID)
	if !ok {
		return nil, fmt.Errorf("devnet: unknown chain %q", chainID)
	}
	return c.Key(i)
}

// UserKeyIndex is the key index of the first user account in the seed's key sequence:
// above the genesis traffic accounts, below the bots (bridge.RelayerKeyIndex).
const UserKeyIndex = 500

// userKey derives user i's key for a chain (eth keys on Initia chains, so one user has one
// address on all of them).
func userKey(seed uint64, i int, s ChainSpec) (*engine.Key, error) {
	return engine.DeriveKey(seed, UserKeyIndex+i, !s.CosmosKeys)
}

// userAccounts are the genesis balances of the users on a chain: the fee denom and, on
// Initia chains, uusdc.
func userAccounts(seed uint64, users int, s ChainSpec) ([]engine.GenesisAccount, error) {
	var out []engine.GenesisAccount
	for i := range users {
		k, err := userKey(seed, i, s)
		if err != nil {
			return nil, err
		}
		out = append(out, engine.GenesisAccount{Address: k.Address(), Coins: userCoins(s)})
	}
	return out, nil
}

// userCoins are a user's (and a test account's) genesis balances: a million whole tokens of
// the fee denom and, on Initia chains, of uusdc, at the decimals the registry gives them (a
// micro denom's 6, GAS's 18), so a wallet shows 1,000,000 of each rather than 0.000001 GAS.
func userCoins(s ChainSpec) []engine.Coin {
	fee := big.NewInt(1_000_000_000_000)
	if s.FeeDenom == "GAS" {
		fee = new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil)
	}
	coins := []engine.Coin{{Denom: s.FeeDenom, Amount: fee}}
	if s.FeeDenom != "uusdc" && s.Kind != KindCosmos {
		coins = append(coins, engine.Coin{Denom: "uusdc", Amount: big.NewInt(1_000_000_000_000)})
	}
	return coins
}

// UserKey returns funded user i of a chain (0 ≤ i < Config.Users) as a txcodec key. Users
// hold 10^12 of the fee denom (and uusdc on Initia chains) at genesis and no seeded traffic
// signs with them or sends to them, so their balances move only by what a client does.
func (n *Network) UserKey(chainID string, i int) (*txcodec.PrivKey, error) {
	s, ok := n.Spec(chainID)
	if !ok {
		return nil, fmt.Errorf("devnet: unknown chain %q", chainID)
	}
	if i < 0 || i >= n.cfg.Users {
		return nil, fmt.Errorf("devnet: no user %d (Users = %d)", i, n.cfg.Users)
	}
	k, err := userKey(n.cfg.Seed, i, s)
	if err != nil {
		return nil, err
	}
	typ := txcodec.EthSecp256k1
	if s.CosmosKeys {
		typ = txcodec.Secp256k1
	}
	return txcodec.NewPrivKey(typ, k.Bytes())
}

// Address is the bech32 address of a key on a chain ("" for an unknown chain).
func (n *Network) Address(chainID string, k *txcodec.PrivKey) string {
	s, ok := n.Spec(chainID)
	if !ok {
		return ""
	}
	a, err := address.Bech32(s.Prefix, k.Address())
	if err != nil {
		return "" // unreachable: Start checked the prefix
	}
	return a
}

// Account reads an account's number and next sequence over the chain's REST gateway
// (`/cosmos/auth/v1beta1/accounts/{addr}`), as a wallet does before signing.
func (n *Network) Account(ctx context.Context, chainID, addr string) (number, sequence uint64, err error) {
	e, ok := n.Endpoints()[chainID]
	if !ok {
		return 0, 0, fmt.Errorf("devnet: unknown chain %q", chainID)
	}
	cl, err := cosmosrest.New(e.REST)
	if err != nil {
		return 0, 0, err
	}
	raw, err := cl.Account(ctx, addr)
	if err != nil {
		return 0, 0, fmt.Errorf("devnet: account %s: %w", addr, err)
	}
	return ParseAccount(raw)
}

// ParseAccount reads account_number and sequence from an auth account document (a
// BaseAccount, or a ModuleAccount/ContractAccount wrapping one in base_account), with or
// without the {"account": …} envelope of the REST response.
func ParseAccount(raw json.RawMessage) (number, sequence uint64, err error) {
	var doc struct {
		Account     json.RawMessage `json:"account"`
		Number      string          `json:"account_number"`
		Sequence    string          `json:"sequence"`
		BaseAccount *struct {
			Number   string `json:"account_number"`
			Sequence string `json:"sequence"`
		} `json:"base_account"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return 0, 0, fmt.Errorf("devnet: account document: %w", err)
	}
	if len(doc.Account) > 0 {
		return ParseAccount(doc.Account)
	}
	num, seq := doc.Number, doc.Sequence
	if doc.BaseAccount != nil {
		num, seq = doc.BaseAccount.Number, doc.BaseAccount.Sequence
	}
	if number, err = strconv.ParseUint(num, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("devnet: account_number %q: %w", num, err)
	}
	if sequence, err = strconv.ParseUint(seq, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("devnet: sequence %q: %w", seq, err)
	}
	return number, sequence, nil
}
