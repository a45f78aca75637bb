package devnet

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/layerzero"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/opinit"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/relayer"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/ethereum"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
	"github.com/rollgate/rollgate/internal/tick"
)

// KindEthereum is the kind endpoints.json gives the Ethereum chain (not a Cosmos chain, so
// no ChainSpec names it).
const KindEthereum Kind = "ethereum"

// AnvilAccountCount is how many of Anvil's accounts the Ethereum chain funds, as Anvil does.
const AnvilAccountCount = 10

// lzBotKeyIndex is the seed key index of the LayerZero DVN/executor bot.
const lzBotKeyIndex = 1100

// AnvilAccount is one of Anvil's well-known accounts (TestMnemonic at m/44'/60'/0'/0/i).
type AnvilAccount struct {
	Index      int            `json:"index"`
	Address    common.Address `json:"address"`
	PrivateKey string         `json:"private_key"` // 0x-prefixed hex, what MetaMask imports
}

// AnvilAccounts lists the Ethereum chain's funded accounts: each holds 10,000 ETH and
// 1,000,000 USDT at genesis.
func AnvilAccounts() ([]AnvilAccount, error) {
	out := make([]AnvilAccount, 0, AnvilAccountCount)
	for i := range AnvilAccountCount {
		k, err := txcodec.PrivKeyFromMnemonic(txcodec.EthSecp256k1, TestMnemonic, fmt.Sprintf("m/44'/60'/0'/0/%d", i))
		if err != nil {
			return nil, err
		}
		out = append(out, AnvilAccount{Index: i, Address: common.BytesToAddress(k.Address()), PrivateKey: fmt.Sprintf("0x%x", k.Bytes())})
	}
	return out, nil
}

// Genesis balances of the Ethereum chain.
var (
	anvilETH  = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(1e18))
	anvilUSDT = big.NewInt(1_000_000_000_000) // 1,000,000 USDT at 6 decimals
	// adapterLocked is the USDT the adapter holds at genesis: what stands behind the L1's
	// USDT (the L1 side mints only what the adapter locked), so L1 → Ethereum sends unlock.
	adapterLocked = new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(1e6))
	// l1USDT is what each test account holds of the L1's USDT at genesis.
	l1USDT = big.NewInt(1_000_000_000_000)
)

// Ethereum is the network's Ethereum chain (Config.LayerZero): an Ethereum JSON-RPC chain
// with ETH, the USDT ERC-20, LayerZero's EndpointV2 and the USDT OFT adapter.
type Ethereum struct {
	c   *ethereum.Chain
	url string
}

// ChainID is the registry chain id ("31337", Anvil's).
func (e *Ethereum) ChainID() string { return lzChainID }

// EVMChainID is eth_chainId.
func (e *Ethereum) EVMChainID() uint64 { return e.c.ChainID() }

// Name is the registry chain_name.
func (e *Ethereum) Name() string { return lzChainName }

// JSONRPC is the chain's JSON-RPC URL.
func (e *Ethereum) JSONRPC() string { return e.url }

// Height is the latest block number.
func (e *Ethereum) Height() int64 { return e.c.Height() }

// Balance is an account's ETH, in wei, at the latest block.
func (e *Ethereum) Balance(a common.Address) *big.Int {
	st, _ := e.c.StateAt(e.c.Height())
	return st.Balance(a)
}

// TokenBalance is an ERC-20 balance at the latest block (USDT: LayerZeroUSDT).
func (e *Ethereum) TokenBalance(token, holder common.Address) (*big.Int, error) {
	in, err := ethereum.ERC20ABI.Pack("balanceOf", holder)
	if err != nil {
		return nil, err
	}
	ret, _, err := e.c.Simulate(e.c.Height(), common.Address{}, &token, nil, in)
	if err != nil {
		return nil, fmt.Errorf("balanceOf: %w", err)
	}
	return new(big.Int).SetBytes(ret), nil
}

// LayerZero facts a client of the devnet needs (the contract addresses and endpoint ids).
var (
	LayerZeroUSDT     = layerzero.EVMUSDT
	LayerZeroAdapter  = layerzero.EVMAdapter
	LayerZeroEndpoint = layerzero.EVMEndpoint
	// LayerZeroL1OFT is the L1 OFT package address; LayerZeroL1USDT its token's bank denom.
	LayerZeroL1OFT      = layerzero.L1OFT.String()
	LayerZeroL1USDT     = layerzero.L1USDTDenom
	LayerZeroL1Endpoint = layerzero.L1Endpoint.String()
	// LayerZeroL1Composer is the L1's OPinit composer (lz_compose makes an OPinit deposit of
	// what arrives for it).
	LayerZeroL1Composer = layerzero.L1Composer.String()
)

// LayerZero endpoint ids.
const (
	LayerZeroEIDEthereum = layerzero.EIDEthereum
	LayerZeroEIDL1       = layerzero.EIDL1
)

// LayerZero is the network's DVN/executor bot.
type LayerZero struct{ r *layerzero.Relayer }

// SetDeliver turns delivery on or off at run time (off: packets stay undelivered).
func (l *LayerZero) SetDeliver(on bool) { l.r.SetDeliver(on) }

// LayerZeroStats count packets sent, verified and delivered.
type LayerZeroStats = layerzero.Stats

// Stats are the bot's counters.
func (l *LayerZero) Stats() LayerZeroStats { return l.r.Stats() }

// Ethereum is the network's Ethereum chain (false without Config.LayerZero).
func (n *Network) Ethereum() (*Ethereum, bool) {
	if n.lz == nil {
		return nil, false
	}
	return n.lz.eth, true
}

// LayerZero is the DVN/executor bot (nil without Config.LayerZero).
func (n *Network) LayerZero() *LayerZero {
	if n.lz == nil {
		return nil
	}
	return &LayerZero{r: n.lz.relayer}
}

// lzParts is the LayerZero side of a network: the Ethereum chain, the bot and its key.
type lzParts struct {
	eth     *Ethereum
	relayer *layerzero.Relayer
	bot     *engine.Key
	l1      string // the L1's chain id
}

// lzEVMChainID is the Ethereum chain's eth_chainId (Anvil's 31337, the registry's chain id).
const lzEVMChainID = 31337

// lzTestCoins are the L1 USDT a test account holds on the L1 (none elsewhere or without
// LayerZero), so the printed mnemonic can send USDT to Ethereum at once.
func (cfg Config) lzTestCoins(s ChainSpec) []engine.Coin {
	if !cfg.LayerZero || s.Kind != KindL1 {
		return nil
	}
	return []engine.Coin{{Denom: layerzero.L1USDTDenom, Amount: new(big.Int).Set(l1USDT)}}
}

// lzBot is the LayerZero bot's key of a seed.
func lzBot(seed uint64) (*engine.Key, error) { return engine.DeriveKey(seed, lzBotKeyIndex, true) }

// lzMoveOptions are the L1's LayerZero packages (on the L1 with Config.LayerZero); the
// OPinit composer sends its deposits through the ophost handler among the chain's modules.
func (cfg Config) lzMoveOptions(s ChainSpec, modules []sim.Module) []move.Option {
	if !cfg.LayerZero || s.Kind != KindL1 {
		return nil
	}
	bot, err := lzBot(cfg.Seed)
	if err != nil {
		return nil // DeriveKey fails only without a valid scalar in 16 tries
	}
	return []move.Option{
		move.WithPackage(layerzero.L1OFT, &layerzero.OFTPackage{FeeDenom: s.FeeDenom,
			Peers: map[uint32][32]byte{layerzero.EIDEthereum: layerzero.Bytes32(layerzero.EVMAdapter)}}),
		move.WithPackage(layerzero.L1Endpoint, &layerzero.EndpointPackage{DVN: move.AccAddr(bot.Address())}),
		move.WithPackage(layerzero.L1Composer, &layerzero.ComposerPackage{OFT: layerzero.L1OFT, Meta: layerzero.L1USDTMeta,
			Deposit: handlerOf(modules, opinit.URLInitiateTokenDeposit)}),
	}
}

// handlerOf is the handler of a message type among modules (one that fails when none has it).
func handlerOf(modules []sim.Module, typeURL string) sim.Handler {
	for _, m := range modules {
		if h, ok := m.Handlers()[typeURL]; ok {
			return h
		}
	}
	return func(sim.Env, proto.Message) error { return fmt.Errorf("no handler of %s on this chain", typeURL) }
}

// lzChainParts are the L1's LayerZero genesis module and bot account.
func (n *Network) lzChainParts(s ChainSpec) ([]sim.Module, []engine.GenesisAccount) {
	if !n.cfg.LayerZero || s.Kind != KindL1 {
		return nil, nil
	}
	bot, err := lzBot(n.cfg.Seed)
	if err != nil {
		return nil, nil
	}
	return []sim.Module{layerzero.L1Module{Fee: s.FeeDenom}}, bridge.BotAccounts(s.FeeDenom, bot)
}

// buildLayerZero builds the Ethereum chain and the bot, once the L1 exists.
func (n *Network) buildLayerZero() error {
	if !n.cfg.LayerZero {
		return nil
	}
	var l1 *Chain
	for _, c := range n.chains {
		if c.Spec.Kind == KindL1 {
			l1 = c
			break
		}
	}
	if l1 == nil {
		return fmt.Errorf("devnet: LayerZero needs an L1 chain")
	}
	bot, err := lzBot(n.cfg.Seed)
	if err != nil {
		return err
	}
	anvil, err := AnvilAccounts()
	if err != nil {
		return err
	}
	botAddr := crypto.PubkeyToAddress(bot.ECDSA().PublicKey)
	accounts := map[common.Address]*big.Int{botAddr: new(big.Int).Set(anvilETH)}
	usdtGenesis := map[common.Address]*big.Int{layerzero.EVMAdapter: new(big.Int).Set(adapterLocked)}
	for _, a := range anvil {
		accounts[a.Address] = new(big.Int).Set(anvilETH)
		usdtGenesis[a.Address] = new(big.Int).Set(anvilUSDT)
	}
	usdt := &ethereum.ERC20{Address: layerzero.EVMUSDT, Name: "Tether USD", Symbol: "USDT", Decimals: 6, Genesis: usdtGenesis}
	ep := &layerzero.Endpoint{DVN: botAddr}
	adapter := &layerzero.Adapter{Token: usdt, Endpoint: ep, Peers: map[uint32][32]byte{layerzero.EIDL1: [32]byte(layerzero.L1OFT)}}
	ep.OApps = map[common.Address]layerzero.OApp{layerzero.EVMAdapter: adapter}
	ch, err := ethereum.New(ethereum.Config{ChainID: lzEVMChainID, GenesisTime: n.cfg.GenesisTime, Accounts: accounts,
		Contracts: map[common.Address]ethereum.Contract{layerzero.EVMUSDT: usdt, layerzero.EVMAdapter: adapter, layerzero.EVMEndpoint: ep}})
	if err != nil {
		return err
	}
	delay := n.cfg.LayerZeroDelay
	if delay <= 0 {
		delay = 2 * n.cfg.BlockInterval
	}
	l1eng := l1.eng
	r := layerzero.New(layerzero.Config{Eth: ch, L1: relayer.NewEngineChain(l1eng, bot), Bot: bot.ECDSA(),
		BotL1: engine.Bech32(l1.Spec.Prefix, bot.Address()), Delay: delay, Deliver: !n.cfg.LayerZeroNeverDeliver,
		Now: func() time.Time { return n.clock(l1eng.Height()) }, Logger: n.log.With("component", "layerzero")})
	n.lz = &lzParts{eth: &Ethereum{c: ch}, relayer: r, bot: bot, l1: l1.Spec.ChainID}
	return nil
}

// clock is the network's time at a height: block h's time on every chain (the engine's
// genesis time plus h-1 intervals), so delays are counted in block time, manual or not.
func (n *Network) clock(h int64) time.Time {
	return n.cfg.GenesisTime.Add(time.Duration(h-1) * n.cfg.BlockInterval)
}

// produceEthereum produces the Ethereum chain's next block at the network's clock.
func (n *Network) produceEthereum() {
	n.lz.eth.c.ProduceBlock(n.clock(n.lz.eth.c.Height() + 1))
}

// runLayerZero produces Ethereum blocks and steps the bot on the block timer.
func (n *Network) runLayerZero(ctx context.Context) {
	defer n.wg.Done()
	tick.Every(ctx, n.cfg.BlockInterval, func(time.Time) {
		n.produceEthereum()
		if err := n.lz.relayer.Step(ctx); err != nil {
			n.log.Warn("layerzero step failed", "err", err)
		}
	})
}

// serveEthereum starts the Ethereum JSON-RPC (port PortBase+10·len(Chains)+2).
func (n *Network) serveEthereum() error {
	if n.lz == nil {
		return nil
	}
	ln, err := listen(n.cfg.Host, n.cfg.port(len(n.chains), 2))
	if err != nil {
		return fmt.Errorf("listen for %s: %w", lzChainName, err)
	}
	n.serve(ln, n.faults.Wrap(ethereum.NewJSONRPC(n.lz.eth.c, n.log.With("chain", lzChainName))), lzChainName)
	n.lz.eth.url = "http://" + ln.Addr().String()
	return nil
}
