// Package engine is the devnet engine: one simulated Cosmos chain with accounts, a bank, a
// versioned state, a mempool, transaction verification and execution, and block production,
// producing blocks, results and events shaped exactly like a CometBFT 0.38 / Cosmos SDK 0.50
// node's. Modules (EVM, Move, Wasm, IBC, OPinit) plug in through internal/devnet/sim.
package engine

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/sim"
)

// Kind is the flavour of a chain.
type Kind string

// Chain kinds.
const (
	KindL1     Kind = "l1"
	KindEVM    Kind = "evm"
	KindMove   Kind = "move"
	KindWasm   Kind = "wasm"
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
	Modules       []sim.Module
	Bank          sim.BankFlavor // nil: plain x/bank events
	CosmosKeys    bool           // sign with /cosmos.crypto.secp256k1 keys instead of eth_secp256k1
	Signer        CustomSigner
	Verifier      CustomVerifier
	AppName       string // node_info application_version.name, default per kind
	AppVersion    string // default "v1.2.16"
	Logger        *slog.Logger
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
		amt, _ := new(big.Int).SetString("1000000000000000000000000", 10)
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

// TxResult is an ABCI ExecTxResult.
type TxResult struct {
	Code      uint32
	Data      []byte
	Log       string
	Info      string
	GasWanted int64
	GasUsed   int64
	Events    []sim.Event
	Codespace string
}

// BlockID is a CometBFT block id.
type BlockID struct {
	Hash       []byte
	PartsTotal int
	PartsHash  []byte
}

// Block is a committed block with its results. Immutable once stored.
type Block struct {
	ChainID            string
	Height             int64
	Time               time.Time
	LastBlockID        BlockID
	LastCommitHash     []byte
	DataHash           []byte
	ValidatorsHash     []byte
	NextValidatorsHash []byte
	ConsensusHash      []byte
	AppHash            []byte // state after the previous block
	LastResultsHash    []byte
	EvidenceHash       []byte
	ProposerAddress    []byte
	ID                 BlockID
	Txs                [][]byte
	TxHashes           [][32]byte
	Results            []TxResult
	FinalizeEvents     []sim.Event
	ResultAppHash      []byte // state after this block (block_results.app_hash)
	// LastCommit: the single validator's signature of the previous block.
	LastCommitHeight    int64
	LastCommitSignature []byte
	LastCommitTime      time.Time
}

// CheckResult is what broadcast_tx_sync answers.
type CheckResult struct {
	Code      uint32
	Data      []byte
	Log       string
	Codespace string
	Hash      [32]byte
}

type txLoc struct {
	height int64
	index  int
}

// Chain is one simulated chain. All methods are safe for concurrent use.
type Chain struct {
	cfg      Config
	log      *slog.Logger
	valKey   ed25519.PrivateKey
	valAddr  []byte
	mu       sync.RWMutex
	st       *store
	height   int64
	blocks   []*Block
	appHash  []byte
	txIndex  map[[32]byte]txLoc
	mempool  [][]byte
	pending  map[string]uint64 // hex addr -> next sequence counting the mempool
	keys     []*Key
	accounts []sim.Account
	handlers map[string]sim.Handler
	feesPrev []Coin // fees collected in the previous block (L1 distributes them in BeginBlock)
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
		cfg: cfg, log: cfg.Logger, valKey: vk, valAddr: va[:20], st: newStore(),
		txIndex: map[[32]byte]txLoc{}, pending: map[string]uint64{}, handlers: map[string]sim.Handler{},
	}
	c.handlers["/cosmos.bank.v1beta1.MsgSend"] = c.handleMsgSend
	c.handlers["/cosmos.bank.v1beta1.MsgMultiSend"] = c.handleMultiSend
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

// Height is the latest committed height.
func (c *Chain) Height() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.height
}

// Block returns the committed block at a height.
func (c *Chain) Block(h int64) (*Block, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if h <= 0 {
		h = c.height
	}
	if h > c.height {
		return nil, &FutureHeightError{Requested: h, Current: c.height}
	}
	return c.blocks[h-1], nil
}

// FutureHeightError is CometBFT's error for heights above the tip.
type FutureHeightError struct{ Requested, Current int64 }

func (e *FutureHeightError) Error() string {
	return fmt.Sprintf("height %d must be less than or equal to the current blockchain height %d", e.Requested, e.Current)
}

// TxByHash finds a committed tx.
func (c *Chain) TxByHash(hash [32]byte) (*Block, int, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	loc, ok := c.txIndex[hash]
	if !ok {
		return nil, 0, false
	}
	return c.blocks[loc.height-1], loc.index, true
}

// Query opens a read view at a height (0 = latest).
func (c *Chain) Query(height int64) (sim.Query, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if height <= 0 {
		height = c.height
	}
	if height > c.height {
		return nil, &FutureHeightError{Requested: height, Current: c.height}
	}
	return &query{c: c, v: lockedView{c: c, height: height}, height: height}, nil
}

// QueryAt resolves x-cosmos-block-height.
func (c *Chain) QueryAt(r *http.Request) (sim.Query, error) {
	var h int64
	if s := r.Header.Get("x-cosmos-block-height"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("invalid height %q", s)
		}
		h = v
	}
	return c.Query(h)
}

// lockedView reads the store at a height under the read lock (for HTTP handlers).
type lockedView struct {
	c      *Chain
	height int64
}

func (l lockedView) get(key string) ([]byte, bool) {
	l.c.mu.RLock()
	defer l.c.mu.RUnlock()
	return l.c.st.get(key, l.height)
}

func (l lockedView) iterate(prefix string, fn func(string, []byte) bool) {
	type kv struct {
		k string
		v []byte
	}
	var all []kv
	l.c.mu.RLock()
	l.c.st.iterate(prefix, l.height, func(k string, v []byte) bool { all = append(all, kv{k, v}); return true })
	l.c.mu.RUnlock()
	for _, e := range all {
		if !fn(e.k, e.v) {
			return
		}
	}
}

type query struct {
	c      *Chain
	v      view
	height int64
}

func (q *query) ChainID() string       { return q.c.cfg.ChainID }
func (q *query) Height() int64         { return q.height }
func (q *query) AddressPrefix() string { return q.c.cfg.Bech32Prefix }
func (q *query) Store(module string) sim.KVReader {
	return readKV{v: q.v, prefix: module + "/"}
}
func (q *query) Balance(addr []byte, denom string) *big.Int { return balanceIn(q.v, addr, denom) }

// Balances lists an account's non-zero balances sorted by denom.
func Balances(q sim.Query, addr []byte) []Coin {
	var out []Coin
	prefix := "b/" + hex.EncodeToString(addr) + "/"
	q.Store("bank").Iterate(prefix, func(k string, v []byte) bool {
		amt, ok := new(big.Int).SetString(string(v), 10)
		if ok && amt.Sign() > 0 {
			out = append(out, Coin{Denom: k[len(prefix):], Amount: amt})
		}
		return true
	})
	return out
}

// Supply lists the total supply per denom.
func Supply(q sim.Query) []Coin {
	var out []Coin
	q.Store("bank").Iterate("s/", func(k string, v []byte) bool {
		amt, ok := new(big.Int).SetString(string(v), 10)
		if ok && amt.Sign() > 0 {
			out = append(out, Coin{Denom: k[2:], Amount: amt})
		}
		return true
	})
	return out
}

func balanceIn(v view, addr []byte, denom string) *big.Int {
	b, ok := v.get("bank/b/" + hex.EncodeToString(addr) + "/" + denom)
	if !ok {
		return new(big.Int)
	}
	amt, ok := new(big.Int).SetString(string(b), 10)
	if !ok {
		return new(big.Int)
	}
	return amt
}

// --- mempool and CheckTx ---

// BroadcastTxSync runs CheckTx and queues the tx for the next block.
func (c *Chain) BroadcastTxSync(raw []byte) CheckResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	res := CheckResult{Hash: sha256.Sum256(raw)}
	tx, err := DecodeTx(raw)
	if err != nil {
		res.Code, res.Codespace, res.Log = 2, "sdk", err.Error()+": tx parse error"
		return res
	}
	if _, dup := c.txIndex[tx.Hash]; dup {
		res.Code, res.Codespace, res.Log = 19, "sdk", "tx already exists in cache"
		return res
	}
	v := heightView{c.st, c.height}
	if cerr := c.ante(v, tx, true); cerr != nil {
		res.Code, res.Codespace, res.Log = cerr.Code, cerr.Codespace, cerr.Log
		return res
	}
	for _, si := range tx.Signers {
		addr, _ := AddressOf(si.PubKeyType, si.PubKey)
		c.pending[hex.EncodeToString(addr)] = si.Sequence + 1
	}
	c.mempool = append(c.mempool, raw)
	return res
}

type account struct {
	Number     uint64 `json:"number"`
	Sequence   uint64 `json:"sequence"`
	PubKeyType string `json:"pub_key_type,omitempty"`
	PubKey     []byte `json:"pub_key,omitempty"`
	Module     string `json:"module,omitempty"`
}

// Account is the auth state of an address.
type Account struct {
	Address      []byte
	Number       uint64
	Sequence     uint64
	PubKeyType   string
	PubKey       []byte
	ModuleName   string
	ContractCode bool
}

func getAccount(v view, addr []byte) (account, bool) {
	b, ok := v.get("auth/a/" + hex.EncodeToString(addr))
	if !ok {
		return account{}, false
	}
	var a account
	if err := jsonUnmarshal(b, &a); err != nil {
		return account{}, false
	}
	return a, true
}

// AccountAt reads an account from a query view.
func AccountAt(q sim.Query, addr []byte) (Account, bool) {
	b, ok := q.Store("auth").Get("a/" + hex.EncodeToString(addr))
	if !ok {
		return Account{}, false
	}
	var a account
	if err := jsonUnmarshal(b, &a); err != nil {
		return Account{}, false
	}
	return Account{Address: addr, Number: a.Number, Sequence: a.Sequence, PubKeyType: a.PubKeyType, PubKey: a.PubKey, ModuleName: a.Module}, true
}

// AllAccounts lists accounts sorted by address bytes.
func AllAccounts(q sim.Query) []Account {
	var out []Account
	q.Store("auth").Iterate("a/", func(k string, v []byte) bool {
		addr, err := hex.DecodeString(k[2:])
		if err != nil {
			return true
		}
		var a account
		if jsonUnmarshal(v, &a) == nil {
			out = append(out, Account{Address: addr, Number: a.Number, Sequence: a.Sequence, PubKeyType: a.PubKeyType, PubKey: a.PubKey, ModuleName: a.Module})
		}
		return true
	})
	return out
}

// ante verifies signatures and sequences (and, when checking, the mempool's pending sequences).
func (c *Chain) ante(v view, tx *Tx, check bool) *sim.CodedError {
	if len(tx.Signers) == 0 || len(tx.Signers) != len(tx.Signatures) {
		return &sim.CodedError{Codespace: "sdk", Code: 4, Log: fmt.Sprintf("invalid number of signatures; expected: %d, got %d: unauthorized", len(tx.Signers), len(tx.Signatures))}
	}
	if tx.TimeoutHeight != 0 && int64(tx.TimeoutHeight) <= c.height {
		return &sim.CodedError{Codespace: "sdk", Code: 30, Log: fmt.Sprintf("block height: %d, timeout height: %d: tx timeout height", c.height+1, tx.TimeoutHeight)}
	}
	msgs, err := c.decodeMsgs(tx)
	if err != nil {
		return &sim.CodedError{Codespace: "sdk", Code: 2, Log: err.Error() + ": tx parse error"}
	}
	for i, si := range tx.Signers {
		addr, err := AddressOf(si.PubKeyType, si.PubKey)
		if err != nil {
			return &sim.CodedError{Codespace: "sdk", Code: 8, Log: err.Error() + ": invalid pubkey"}
		}
		acc, ok := getAccount(v, addr)
		if !ok {
			return &sim.CodedError{Codespace: "sdk", Code: 9, Log: fmt.Sprintf("account %s not found: unknown address", Bech32(c.cfg.Bech32Prefix, addr))}
		}
		want := acc.Sequence
		if check {
			if p, ok := c.pending[hex.EncodeToString(addr)]; ok && p > want {
				want = p
			}
		}
		if si.Sequence != want {
			return &sim.CodedError{Codespace: "sdk", Code: 32, Log: fmt.Sprintf("account sequence mismatch, expected %d, got %d: incorrect account sequence", want, si.Sequence)}
		}
		switch si.Mode {
		case SignModeDirect:
			sb := SignDoc(tx.BodyBytes, tx.AuthInfoBytes, c.cfg.ChainID, acc.Number)
			if !VerifyDirect(si.PubKeyType, si.PubKey, sb, tx.Signatures[i]) {
				return &sim.CodedError{Codespace: "sdk", Code: 4, Log: fmt.Sprintf("signature verification failed; please verify account number (%d) and chain-id (%s): unauthorized", acc.Number, c.cfg.ChainID)}
			}
		case signModeLegacyAminoJSON:
			if err := c.verifyAmino(tx, acc.Number); err != nil {
				return &sim.CodedError{Codespace: "sdk", Code: 4, Log: fmt.Sprintf("signature verification failed; please verify account number (%d) and chain-id (%s): unauthorized", acc.Number, c.cfg.ChainID)}
			}
		default:
			if c.cfg.Verifier == nil {
				return &sim.CodedError{Codespace: "sdk", Code: 4, Log: fmt.Sprintf("unsupported sign mode %d: unauthorized", si.Mode)}
			}
			if err := c.cfg.Verifier(c.cfg.ChainID, tx, i, msgs); err != nil {
				return &sim.CodedError{Codespace: "sdk", Code: 4, Log: fmt.Sprintf("signature verification failed; %v: unauthorized", err)}
			}
		}
	}
	// every message signer must have signed
	for _, m := range msgs {
		if s := msgSigner(m); s != "" {
			addr, err := ParseAddress(c.cfg.Bech32Prefix, s)
			if err != nil {
				return &sim.CodedError{Codespace: "sdk", Code: 7, Log: err.Error() + ": invalid address"}
			}
			if !c.signedBy(tx, addr) {
				return &sim.CodedError{Codespace: "sdk", Code: 8, Log: fmt.Sprintf("pubKey does not match signer address %s with signer index: 0: invalid pubkey", s)}
			}
		}
	}
	if tx.Fee.GasLimit == 0 {
		return &sim.CodedError{Codespace: "sdk", Code: 11, Log: "out of gas in location: txSize; gasWanted: 0, gasUsed: 0: out of gas"}
	}
	return nil
}

func (c *Chain) signedBy(tx *Tx, addr []byte) bool {
	for _, si := range tx.Signers {
		a, err := AddressOf(si.PubKeyType, si.PubKey)
		if err == nil && string(a) == string(addr) {
			return true
		}
	}
	return false
}

func (c *Chain) decodeMsgs(tx *Tx) ([]proto.Message, error) {
	out := make([]proto.Message, 0, len(tx.Msgs))
	for _, a := range tx.Msgs {
		m, err := DecodeAny(a.TypeURL, a.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

const signModeLegacyAminoJSON = 127

// verifyAmino checks SIGN_MODE_LEGACY_AMINO_JSON signatures through txcodec, which renders the
// amino JSON sign doc of every message type it knows.
func (c *Chain) verifyAmino(tx *Tx, _ uint64) error {
	d, err := txcodec.Decode(tx.Raw)
	if err != nil {
		return err
	}
	v := heightView{c.st, c.height}
	return txcodec.VerifySignatures(d, c.cfg.ChainID, func(addr []byte) (txcodec.Account, bool) {
		a, ok := getAccount(v, addr)
		if !ok {
			return txcodec.Account{}, false
		}
		// the sequence was checked by the ante handler (mempool included); echo the signed one
		for _, si := range tx.Signers {
			if sa, err := AddressOf(si.PubKeyType, si.PubKey); err == nil && string(sa) == string(addr) {
				return txcodec.Account{Number: a.Number, Sequence: si.Sequence}, true
			}
		}
		return txcodec.Account{Number: a.Number, Sequence: a.Sequence}, true
	})
}

// msgSigner finds the signer field of a message by the SDK's conventional names.
func msgSigner(m proto.Message) string {
	for _, f := range []string{"sender", "from_address", "signer", "authority", "creator", "executor", "relayer", "admin"} {
		if s := GetString(m, f); s != "" {
			return s
		}
	}
	return ""
}

// --- block production ---

// ProduceBlock builds, executes and commits the next block: the mempool first, then the
// modules' traffic intents signed with the genesis keys.
func (c *Chain) ProduceBlock() (*Block, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	height := c.height + 1
	btime := c.cfg.GenesisTime.Add(time.Duration(height-1) * c.cfg.BlockInterval)
	txs := c.mempool
	c.mempool = nil
	txs = append(txs, c.trafficTxs(height)...)
	bo := newOverlay(heightView{c.st, c.height})
	var finalize []sim.Event
	if c.cfg.Kind == KindL1 && len(c.feesPrev) > 0 {
		env := c.newEnv(bo, height, btime, nil)
		if err := env.sendRaw(address.ModuleAccount("fee_collector"), address.ModuleAccount("distribution"), c.feesPrev); err == nil {
			for _, ev := range env.events {
				ev.Attributes = append(ev.Attributes, sim.Attribute{Key: "mode", Value: "BeginBlock", Index: true})
				finalize = append(finalize, ev)
			}
		}
	}
	c.feesPrev = nil
	results := make([]TxResult, len(txs))
	for i, raw := range txs {
		results[i] = c.deliver(bo, height, btime, raw, uint32(i))
	}
	b := c.commitBlock(bo, height, btime, txs, results, finalize)
	c.pending = map[string]uint64{}
	return b, nil
}

func (c *Chain) trafficTxs(height int64) [][]byte {
	if len(c.cfg.Modules) == 0 {
		return nil
	}
	q := &query{c: c, v: heightView{c.st, c.height}, height: c.height}
	seqs := map[int]uint64{}
	var out [][]byte
	for mi, m := range c.cfg.Modules {
		rng := rand.New(rand.NewPCG(c.cfg.Seed^chainSalt(c.cfg.ChainID), uint64(height)<<8|uint64(mi)))
		for _, in := range c.safeTraffic(m, rng, q) {
			if in.Signer < 0 || in.Signer >= len(c.keys) || len(in.Msgs) == 0 {
				continue
			}
			raw, err := c.signIntent(in, seqs)
			if err != nil {
				c.log.Warn("traffic intent dropped", "chain", c.cfg.ChainID, "module", m.Name(), "err", err)
				continue
			}
			out = append(out, raw)
		}
	}
	return out
}

func (c *Chain) safeTraffic(m sim.Module, rng *rand.Rand, q sim.Query) (out []sim.Intent) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("traffic generator panicked; no traffic from it this block", "chain", c.cfg.ChainID, "module", m.Name(), "panic", r)
			out = nil
		}
	}()
	return m.Traffic(rng, q, c.Accounts())
}

func chainSalt(id string) uint64 {
	s := sha256.Sum256([]byte(id))
	return binary.BigEndian.Uint64(s[:8])
}

func (c *Chain) signIntent(in sim.Intent, seqs map[int]uint64) ([]byte, error) {
	key := c.keys[in.Signer]
	acc, ok := getAccount(heightView{c.st, c.height}, key.Address())
	if !ok {
		return nil, errors.New("signer account missing")
	}
	seq, ok := seqs[in.Signer]
	if !ok {
		seq = acc.Sequence
		if p, ok := c.pending[hex.EncodeToString(key.Address())]; ok && p > seq {
			seq = p
		}
	}
	gas := in.GasLimit
	if gas == 0 {
		gas = 300000
	}
	fee := Fee{GasLimit: gas}
	if seq%5 == 4 { // now and then a tx pays a fee, as the fixture's CLI sends do
		amt := big.NewInt(1000)
		if c.cfg.Kind == KindEVM {
			amt = big.NewInt(100000000000000)
		}
		fee.Amount = []Coin{{Denom: c.cfg.FeeDenom, Amount: amt}}
	}
	if c.cfg.Signer != nil {
		raw, ok, err := c.cfg.Signer(c.cfg.ChainID, key, acc.Number, seq, in, fee)
		if err != nil {
			return nil, err
		}
		if ok {
			seqs[in.Signer] = seq + 1
			return raw, nil
		}
	}
	raw, err := SignDirect(c.cfg.ChainID, key, acc.Number, seq, in.Msgs, in.Memo, fee)
	if err != nil {
		return nil, err
	}
	seqs[in.Signer] = seq + 1
	return raw, nil
}

// SignDirect builds and signs a SIGN_MODE_DIRECT transaction.
func SignDirect(chainID string, key *Key, accountNumber, sequence uint64, msgs []proto.Message, memo string, fee Fee) ([]byte, error) {
	anys := make([]AnyMsg, 0, len(msgs))
	for _, m := range msgs {
		v, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("marshal msg: %w", err)
		}
		anys = append(anys, AnyMsg{TypeURL: TypeURL(m), Value: v})
	}
	body := EncodeBody(anys, memo, 0)
	auth := EncodeAuthInfo([]SignerInfo{{PubKeyType: key.PubKeyType(), PubKey: key.PubKey(), Mode: SignModeDirect, Sequence: sequence}}, fee)
	sig, err := key.Sign(SignDoc(body, auth, chainID, accountNumber))
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return EncodeTxRaw(body, auth, [][]byte{sig}), nil
}

// AccountState returns the account number and sequence of an address (latest state).
func (c *Chain) AccountState(addr []byte) (number, sequence uint64, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	a, ok := getAccount(heightView{c.st, c.height}, addr)
	return a.Number, a.Sequence, ok
}

// Gas model: deterministic, roughly the SDK's orders of magnitude.
const (
	gasTxBase     = 80000
	gasPerTxByte  = 10
	gasPerSig     = 1000
	gasPerMsg     = 5000
	gasPerSend    = 12000
	gasPerEvent   = 250
	gasPerKVWrite = 2000
)

func (c *Chain) deliver(bo *overlay, height int64, btime time.Time, raw []byte, index uint32) TxResult {
	hash := sha256.Sum256(raw)
	tx, err := DecodeTx(raw)
	if err != nil {
		return TxResult{Code: 2, Codespace: "sdk", Log: err.Error() + ": tx parse error"}
	}
	res := TxResult{GasWanted: int64(tx.Fee.GasLimit)}
	anteO := newOverlay(bo)
	if cerr := c.ante(anteO, tx, false); cerr != nil {
		res.Code, res.Codespace, res.Log = cerr.Code, cerr.Codespace, cerr.Log
		return res
	}
	env := c.newEnv(anteO, height, btime, hash[:])
	env.gas = gasTxBase + gasPerTxByte*uint64(len(raw)) + gasPerSig*uint64(len(tx.Signers))
	// fee
	payer, _ := AddressOf(tx.Signers[0].PubKeyType, tx.Signers[0].PubKey)
	if tx.Fee.Payer != "" {
		if p, err := ParseAddress(c.cfg.Bech32Prefix, tx.Fee.Payer); err == nil {
			payer = p
		}
	}
	if len(tx.Fee.Amount) > 0 {
		if err := env.sendRaw(payer, address.ModuleAccount("fee_collector"), tx.Fee.Amount); err != nil {
			res.Code, res.Codespace = 13, "sdk"
			res.Log = fmt.Sprintf("%s: insufficient fee", err.Error())
			res.GasUsed = int64(env.gas)
			return res
		}
		c.feesPrev = append(c.feesPrev, tx.Fee.Amount...)
	}
	ante := env.events
	ante = append(ante, sim.Event{Type: "tx", Attributes: []sim.Attribute{
		{Key: "fee", Value: CoinsString(tx.Fee.Amount), Index: true},
		{Key: "fee_payer", Value: Bech32(c.cfg.Bech32Prefix, payer), Index: true}}})
	for _, si := range tx.Signers {
		a, _ := AddressOf(si.PubKeyType, si.PubKey)
		ante = append(ante, sim.Event{Type: "tx", Attributes: []sim.Attribute{
			{Key: "acc_seq", Value: fmt.Sprintf("%s/%d", Bech32(c.cfg.Bech32Prefix, a), si.Sequence), Index: true}}})
	}
	for _, s := range tx.Signatures {
		ante = append(ante, sim.Event{Type: "tx", Attributes: []sim.Attribute{
			{Key: "signature", Value: b64(s), Index: true}}})
	}
	for _, si := range tx.Signers {
		a, _ := AddressOf(si.PubKeyType, si.PubKey)
		acc, _ := getAccount(anteO, a)
		acc.Sequence++
		if acc.PubKeyType == "" {
			acc.PubKeyType, acc.PubKey = si.PubKeyType, si.PubKey
		}
		putAccount(anteO, a, acc)
	}
	anteGas := env.gas
	anteO.commitTo(bo)
	res.Events = ante

	msgs, _ := c.decodeMsgs(tx)
	msgO := newOverlay(bo)
	menv := c.newEnv(msgO, height, btime, hash[:])
	menv.gas = anteGas
	menv.txIndex = index
	var events []sim.Event
	var responses []AnyMsg
	fail := func(i int, err error) TxResult {
		var ce *sim.CodedError
		if errors.As(err, &ce) {
			res.Code, res.Codespace = ce.Code, ce.Codespace
			res.Log = fmt.Sprintf("failed to execute message; message index: %d: %s", i, ce.Log)
		} else {
			res.Code, res.Codespace = 1, "undefined"
			res.Log = fmt.Sprintf("failed to execute message; message index: %d: %s", i, err.Error())
		}
		res.GasUsed = int64(menv.gas)
		return res
	}
	for i, m := range msgs {
		url := tx.Msgs[i].TypeURL
		h, ok := c.handlers[url]
		if !ok {
			return fail(i, &sim.CodedError{Codespace: "sdk", Code: 12, Log: fmt.Sprintf("can't route message %s: unknown request", url)})
		}
		menv.events = nil
		menv.response = nil
		menv.gas += gasPerMsg
		writesBefore := len(msgO.order)
		if err := safeCall(h, menv, m); err != nil {
			return fail(i, err)
		}
		menv.gas += gasPerKVWrite*uint64(len(msgO.order)-writesBefore) + gasPerEvent*uint64(len(menv.events))
		sender := msgSigner(m)
		if sender == "" {
			sender = Bech32(c.cfg.Bech32Prefix, payer)
		}
		attrs := []sim.Attribute{{Key: "action", Value: url, Index: true}, {Key: "sender", Value: sender, Index: true}}
		if !hasModuleAttr(menv.events) {
			attrs = append(attrs, sim.Attribute{Key: "module", Value: moduleOf(url), Index: true})
		}
		idx := sim.Attribute{Key: "msg_index", Value: strconv.Itoa(i), Index: true}
		events = append(events, sim.Event{Type: "message", Attributes: append(attrs, idx)})
		for _, ev := range menv.events {
			ev.Attributes = append(append([]sim.Attribute(nil), ev.Attributes...), idx)
			events = append(events, ev)
		}
		if menv.response != nil {
			responses = append(responses, *menv.response)
		} else {
			responses = append(responses, AnyMsg{TypeURL: url + "Response"})
		}
	}
	if menv.gas > tx.Fee.GasLimit {
		res.Code, res.Codespace = 11, "sdk"
		res.Log = fmt.Sprintf("out of gas in location: ReadPerByte; gasWanted: %d, gasUsed: %d: out of gas", tx.Fee.GasLimit, menv.gas)
		res.GasUsed = int64(menv.gas)
		return res
	}
	msgO.commitTo(bo)
	res.Events = append(res.Events, events...)
	res.GasUsed = int64(menv.gas)
	res.Data = EncodeTxMsgData(responses)
	return res
}

// safeCall runs a handler, turning a panic into the failure baseapp reports for one (a
// module bug must fail its tx, not stop the chain).
func safeCall(h sim.Handler, env sim.Env, m proto.Message) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &sim.CodedError{Codespace: "undefined", Code: 111222, Log: "panic message redacted to hide potential sensitive info"}
		}
	}()
	return h(env, m)
}

func hasModuleAttr(evs []sim.Event) bool {
	for _, e := range evs {
		for _, a := range e.Attributes {
			if a.Key == "module" {
				return true
			}
		}
	}
	return false
}

// moduleOf is the second dot-segment of a message type URL ("/cosmos.bank.v1beta1.MsgSend" → bank).
func moduleOf(url string) string {
	parts := strings.Split(strings.TrimPrefix(url, "/"), ".")
	if len(parts) > 1 {
		return parts[1]
	}
	return ""
}

func (c *Chain) commitBlock(bo *overlay, height int64, btime time.Time, txs [][]byte, results []TxResult, finalize []sim.Event) *Block {
	// app hash chains the previous one with every write of the block, in key order
	h := sha256.New()
	h.Write(c.appHash)
	keys := append([]string(nil), bo.order...)
	sortStrings(keys)
	for _, k := range keys {
		v := bo.writes[k]
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write(v)
		if v == nil {
			c.st.set(k, height, nil)
		} else {
			c.st.set(k, height, v)
		}
	}
	newApp := h.Sum(nil)
	b := &Block{
		ChainID: c.cfg.ChainID, Height: height, Time: btime,
		AppHash: c.appHash, ResultAppHash: newApp, Txs: txs, Results: results, FinalizeEvents: finalize,
		ProposerAddress: c.valAddr, LastCommitHeight: height - 1,
	}
	if b.AppHash == nil {
		b.AppHash = []byte{}
	}
	vh := sha256.Sum256(append([]byte("validators/"), c.ValidatorPubKey()...))
	ch := sha256.Sum256([]byte("consensus-params/" + c.cfg.ChainID))
	b.ValidatorsHash, b.NextValidatorsHash, b.ConsensusHash = vh[:], vh[:], ch[:]
	b.EvidenceHash = merkleRoot(nil)
	for _, tx := range txs {
		th := sha256.Sum256(tx)
		b.TxHashes = append(b.TxHashes, th)
	}
	b.DataHash = merkleRoot(txs)
	if height > 1 {
		prev := c.blocks[height-2]
		b.LastBlockID = prev.ID
		b.LastResultsHash = resultsHash(prev.Results)
		b.LastCommitTime = prev.Time.Add(c.cfg.BlockInterval / 2)
		b.LastCommitSignature = ed25519.Sign(c.valKey, voteBytes(c.cfg.ChainID, prev.Height, prev.ID.Hash, b.LastCommitTime))
		lc := sha256.Sum256(append(append([]byte{}, c.valAddr...), b.LastCommitSignature...))
		b.LastCommitHash = lc[:]
	} else {
		b.LastResultsHash = merkleRoot(nil)
		b.LastCommitHash = merkleRoot(nil)
	}
	b.ID.Hash = headerHash(b)
	ph := sha256.Sum256(append([]byte("parts/"), b.ID.Hash...))
	b.ID.PartsTotal, b.ID.PartsHash = 1, ph[:]
	c.blocks = append(c.blocks, b)
	c.height = height
	c.appHash = newApp
	for i, th := range b.TxHashes {
		c.txIndex[th] = txLoc{height: height, index: i}
	}
	return b
}

func voteBytes(chainID string, height int64, blockHash []byte, t time.Time) []byte {
	return []byte(fmt.Sprintf("vote/%s/%d/%X/%s", chainID, height, blockHash, t.UTC().Format(time.RFC3339Nano)))
}

func headerHash(b *Block) []byte {
	fields := [][]byte{
		[]byte("11"), []byte(b.ChainID), []byte(strconv.FormatInt(b.Height, 10)), []byte(b.Time.UTC().Format(time.RFC3339Nano)),
		b.LastBlockID.Hash, b.LastBlockID.PartsHash, b.LastCommitHash, b.DataHash, b.ValidatorsHash, b.NextValidatorsHash,
		b.ConsensusHash, b.AppHash, b.LastResultsHash, b.EvidenceHash, b.ProposerAddress,
	}
	return merkleRoot(fields)
}

func resultsHash(rs []TxResult) []byte {
	leaves := make([][]byte, 0, len(rs))
	for _, r := range rs {
		var buf []byte
		buf = appendVarintField(buf, 1, uint64(r.Code))
		buf = appendBytesField(buf, 2, r.Data)
		buf = appendVarintField(buf, 5, uint64(r.GasWanted))
		buf = appendVarintField(buf, 6, uint64(r.GasUsed))
		leaves = append(leaves, buf)
	}
	return merkleRoot(leaves)
}

// merkleRoot is CometBFT's simple Merkle tree (RFC 6962 leaf/inner prefixes).
func merkleRoot(items [][]byte) []byte {
	switch len(items) {
	case 0:
		s := sha256.Sum256(nil)
		return s[:]
	case 1:
		s := sha256.Sum256(append([]byte{0}, items[0]...))
		return s[:]
	}
	k := 1
	for k*2 < len(items) {
		k *= 2
	}
	l, r := merkleRoot(items[:k]), merkleRoot(items[k:])
	s := sha256.Sum256(append(append([]byte{1}, l...), r...))
	return s[:]
}
