// Package engine is the devnet engine: one simulated Cosmos chain with accounts, a bank, a
// versioned state, a mempool, transaction verification and execution, and block production,
// producing blocks, results and events shaped exactly like a CometBFT 0.38 / Cosmos SDK 0.50
// node's. Modules (EVM, Move, Wasm, IBC, OPinit) plug in through internal/devnet/internal/sim.
package engine

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Kind is the flavour of a chain. It is the tree's one VM kind, so a rollup's kind is the
// very value the indexer and router compare; the two chains that are no rollup (the L1 and an
// external Cosmos chain) are further values of it that vmkind.Parse never accepts.
type Kind = vmkind.Kind

// Chain kinds.
const (
	KindL1     Kind = "l1"
	KindEVM         = vmkind.EVM
	KindMove        = vmkind.Move
	KindWasm        = vmkind.Wasm
	KindCosmos Kind = "cosmos"
)

// GenesisAccount is an extra funded account (no key held by the devnet).
type GenesisAccount struct {
	Address []byte
	Coins   []Coin
}

// CustomSigner signs an intent in a non-direct way (minievm's Ethereum txs); ok=false means
// "sign it with SIGN_MODE_DIRECT".
type CustomSigner func(chainID string, key *Key, accountNumber, sequence uint64, in sim.Intent, fee Fee) (raw []byte, ok bool, err error)

// CustomVerifier verifies a signer of a tx whose sign mode is not SIGN_MODE_DIRECT.
type CustomVerifier func(chainID string, tx *Tx, signer int, msgs []proto.Message) error

// Config configures one chain.
type Config struct {
	ChainID       string
	Kind          Kind
	Bech32Prefix  string        // default "init"
	BlockInterval time.Duration // default 500ms
	Seed          uint64
	GenesisTime   time.Time // default 2026-01-01T00:00:00Z
	NumAccounts   int       // keyed genesis accounts, default 8
	AccountCoins  []Coin    // genesis balance of each keyed account; default 1e24 fee denom
	ExtraAccounts []GenesisAccount
	FeeDenom      string // default: GAS (evm), uinit (l1), umin otherwise
	// MinGasPrices are the node's minimum gas prices, checked in CheckTx only as the SDK
	// does (fee.go); none or all zero: a tx may pay nothing.
	MinGasPrices []GasPrice
	Modules      []sim.Module
	Bank         sim.BankFlavor // nil: plain x/bank events
	CosmosKeys   bool           // sign with /cosmos.crypto.secp256k1 keys instead of eth_secp256k1
	Signer       CustomSigner
	Verifier     CustomVerifier
	AppName      string // node_info application_version.name, default per kind
	AppVersion   string // default "v1.2.16"
	// RetainBlocks, when > 0, keeps only the last RetainBlocks blocks and the state they
	// read (see retain.go); 0 keeps everything.
	RetainBlocks int
	Logger       *slog.Logger
}

func (c *Config) defaults() error {
	if c.ChainID == "" {
		return errors.New("chain id required")
	}
	switch c.Kind {
	case KindL1, KindEVM, KindMove, KindWasm, KindCosmos:
	case "":
		c.Kind = KindCosmos
	default:
		return fmt.Errorf("unknown chain kind %q", c.Kind)
	}
	if c.Bech32Prefix == "" {
		c.Bech32Prefix = "init"
	}
	if _, err := address.Bech32(c.Bech32Prefix, make([]byte, 20)); err != nil {
		return fmt.Errorf("bech32 prefix %q: %w", c.Bech32Prefix, err)
	}
	if c.BlockInterval <= 0 {
		c.BlockInterval = 500 * time.Millisecond
	}
	if c.GenesisTime.IsZero() {
		c.GenesisTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if c.NumAccounts <= 0 {
		c.NumAccounts = 8
	}
	if c.FeeDenom == "" {
		switch c.Kind {
		case KindEVM:
			c.FeeDenom = "GAS"
		case KindL1:
			c.FeeDenom = "uinit"
		default:
			c.FeeDenom = "umin"
		}
	}
	if c.AccountCoins == nil {
		amt := new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil)
		c.AccountCoins = []Coin{{Denom: c.FeeDenom, Amount: amt}}
	}
	if c.AppName == "" {
		switch c.Kind {
		case KindL1:
			c.AppName = "initia"
		case KindEVM:
			c.AppName = "minievm"
		case KindMove:
			c.AppName = "minimove"
		case KindWasm:
			c.AppName = "miniwasm"
		default:
			c.AppName = "simapp"
		}
	}
	if c.AppVersion == "" {
		c.AppVersion = "v1.2.16"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

type txLoc struct {
	height int64
	index  int
}

// Chain is one simulated chain. All methods are safe for concurrent use.
type Chain struct {
	cfg     Config
	log     *slog.Logger
	valKey  ed25519.PrivateKey
	valAddr []byte
	mu      sync.RWMutex
	st      *store
	height  int64
	blocks  []*Block // heights base … height
	base    int64    // lowest retained height (Config.RetainBlocks)
	// committed is blocks, base and height as of the last commit or prune, read without mu:
	// producing a block holds mu for the whole execution of its txs (seconds for a block of
	// thousands), and a real node serves its committed blocks meanwhile.
	committed  atomic.Pointer[committedBlocks]
	appHash    []byte
	txIndex    map[[32]byte]txLoc
	mempool    [][]byte
	pending    map[string]uint64 // hex addr -> next sequence counting the mempool
	keys       []*Key
	accounts   []sim.Account
	handlers   map[string]sim.Handler
	feesPrev   []Coin // fees collected in the previous block (L1 distributes them in BeginBlock)
	pruneHooks []func(newBase int64)
}

// New creates a chain and commits its genesis block (height 1).
func New(cfg Config) (*Chain, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	vs := sha256.Sum256([]byte("rollgate-devnet/validator/" + cfg.ChainID))
	vk := ed25519.NewKeyFromSeed(vs[:])
	va := sha256.Sum256(vk.Public().(ed25519.PublicKey))
	c := &Chain{
		cfg: cfg, log: cfg.Logger, valKey: vk, valAddr: va[:20], st: newStore(), base: 1,
		txIndex: map[[32]byte]txLoc{}, pending: map[string]uint64{}, handlers: map[string]sim.Handler{},
	}
	if err := sim.CheckNeeds(c.newEnv(nil, 0, time.Time{}, nil), cfg.Modules...); err != nil {
		return nil, err
	}
	c.handlers["/cosmos.bank.v1beta1.MsgSend"] = sim.Typed(c.handleMsgSend)
	c.handlers["/cosmos.bank.v1beta1.MsgMultiSend"] = sim.Typed(c.handleMultiSend)
	for _, m := range cfg.Modules {
		for url, h := range m.Handlers() {
			c.handlers[url] = h
		}
	}
	for i := 0; i < cfg.NumAccounts; i++ {
		k, err := DeriveKey(cfg.Seed, i, !cfg.CosmosKeys)
		if err != nil {
			return nil, err
		}
		c.keys = append(c.keys, k)
		c.accounts = append(c.accounts, sim.Account{Addr: k.Address(), Bech32: Bech32(cfg.Bech32Prefix, k.Address())})
	}
	if err := c.genesis(); err != nil {
		return nil, err
	}
	return c, nil
}

// Config returns the chain's configuration (defaults applied).
func (c *Chain) Config() Config { return c.cfg }

// ChainID returns the chain id.
func (c *Chain) ChainID() string { return c.cfg.ChainID }

// Kind returns the chain kind.
func (c *Chain) Kind() Kind { return c.cfg.Kind }

// Accounts returns the keyed genesis accounts.
func (c *Chain) Accounts() []sim.Account { return append([]sim.Account(nil), c.accounts...) }

// Key returns the i-th genesis key (tests sign their own transactions with it).
func (c *Chain) Key(i int) *Key {
	if i < 0 || i >= len(c.keys) {
		return nil
	}
	return c.keys[i]
}

// ValidatorAddress is the proposer address (20 bytes).
func (c *Chain) ValidatorAddress() []byte { return c.valAddr }

// ValidatorPubKey is the proposer's ed25519 public key.
func (c *Chain) ValidatorPubKey() []byte { return c.valKey.Public().(ed25519.PublicKey) }

func (c *Chain) genesis() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	bo := newOverlay(heightView{c.st, 0})
	env := c.newEnv(bo, 1, c.cfg.GenesisTime, nil)
	// module accounts first, as the SDK numbers them before user accounts
	for _, name := range []string{"fee_collector", "distribution", "bank"} {
		env.ensureAccount(address.ModuleAccount(name))
	}
	for _, a := range c.accounts {
		if err := env.mintQuiet(a.Addr, c.cfg.AccountCoins); err != nil {
			return err
		}
	}
	for _, ga := range c.cfg.ExtraAccounts {
		if err := env.mintQuiet(ga.Address, ga.Coins); err != nil {
			return err
		}
	}
	for _, m := range c.cfg.Modules {
		if err := m.InitGenesis(env); err != nil {
			return fmt.Errorf("%s genesis: %w", m.Name(), err)
		}
	}
	c.commitBlock(bo, 1, c.cfg.GenesisTime, nil, nil, nil)
	return nil
}
