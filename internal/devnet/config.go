package devnet

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/testutil/faults"
)

// ChainSpec describes one chain of the network. Only ChainID and Kind are required; the
// rest is derived from the kind (withDefaults).
type ChainSpec struct {
	ChainID string
	Kind    Kind // l1, evm, move, wasm or cosmos
	// Name is the registry chain_name (default: the chain id without "-devnet-N").
	Name string
	// Prefix is the bech32 account prefix (default "init"; "cosmos" suits an external chain).
	Prefix string
	// FeeDenom is the fee token (default uinit on the L1, GAS on EVM, uatom on an external
	// chain, umin on the other rollups).
	FeeDenom string
	// NativeDenoms are the denoms the chain originates for the bridge's registry traces
	// and traffic (default: the fee denom on the L1 and external chains, uusdc on rollups).
	NativeDenoms []string
	// CosmosKeys makes the chain sign with plain secp256k1 keys (default for external
	// chains; Initia chains use eth_secp256k1).
	CosmosKeys bool
}

// Config configures a network.
type Config struct {
	Chains        []ChainSpec
	Seed          uint64
	BlockInterval time.Duration // default 500ms; also the relayer's step interval
	GenesisTime   time.Time     // default: now, truncated to the second
	Host          string        // default 127.0.0.1
	// PortBase: 0 gives random ports; else chain i uses PortBase+10i (rpc), +1 (rest),
	// +2 (json-rpc, EVM only) and +3 (the rollup's OPinit executor API).
	PortBase    int
	Accounts    int // keyed genesis accounts per chain (engine default 8)
	TxsPerBlock int // bound of the engine's built-in traffic (EVM default 4, bank default 2)
	// Faults is the share of failing requests (0 = off; adjustable later via Network.Faults()).
	Faults     float64
	FaultSeed  uint64
	FaultHang  time.Duration // default 30s
	FaultKinds []faults.Kind // default: all (500, hang, close, truncate)
	// RetainBlocks, when > 0, keeps only each chain's last RetainBlocks blocks and the
	// state they read; older heights answer as on a pruned node. 0 keeps everything.
	// Settled bridge records leave with the blocks that wrote them (sim.Forgetter): IBC
	// receipts and acknowledgements, and withdrawals KeepWithdrawals past their
	// finalization period.
	RetainBlocks int
	// KeepWithdrawals is how long a withdrawal stays claimable after its finalization
	// period when RetainBlocks > 0 (0: for good).
	KeepWithdrawals time.Duration
	// CORS are the cross-origin settings of every chain's servers (RPC, REST, JSON-RPC and
	// the executor API), the indexers' settings type: a browser wallet calls the chains as
	// it calls a node. Off by default.
	CORS httpapi.CORS
	// DataDir, when set, receives endpoints.json and registry/ once everything listens.
	DataDir      string
	ManualBlocks bool // no timers: blocks (and relayer steps) only through ProduceBlock

	// Bridges wires the OPinit bridges L1 ↔ every rollup and the IBC channels L1 ↔ every
	// other chain, funds the relayer and executor bots, and runs the relayer/executor and
	// the rollups' executor APIs. Off, the chains run alone (the indexer goldens' network).
	Bridges bool
	// BridgeTraffic is the bridge modules' seeded traffic rate (per block, the chance of
	// one IBC transfer per chain, one deposit on the L1 and one withdrawal per rollup).
	BridgeTraffic float64
	// NFTTraffic turns on ICS-721 with the bridges: an nft-transfer channel between the L1
	// and every rollup, NFT classes on the L1 and, per block, this chance of one L1 transfer
	// of class tokens to a rollup, which mints them in its VM (0: no ICS-721).
	NFTTraffic float64
	// FinalizationPeriod of every OPinit bridge (0: withdrawals can be claimed at once).
	FinalizationPeriod time.Duration
	// Users is the number of funded user accounts per chain that no built-in traffic
	// touches: clients sign with them (UserKey) and see exact balances.
	Users int
	// TestAccounts is the number of funded accounts derived from TestMnemonic along
	// TestAccountPath (coin type 60 on Initia chains, 118 on Cosmos ones), for importing
	// into a wallet (`rollgate up` funds 3; default 0).
	TestAccounts int
	// LayerZero runs LayerZero v2 between the L1 and an Ethereum chain (ethereum-devnet,
	// chain id 31337, its own JSON-RPC server): the chain with ETH, USDT and an OFT adapter
	// over it, the L1's USDT OFT and endpoint as Move packages, a DVN/executor bot delivering
	// each packet LayerZeroDelay after its source block, and both in the registry.
	LayerZero bool
	// LayerZeroDelay is the time from a packet's source block to its verification on the
	// destination (delivery follows a block later); default 2 × BlockInterval.
	LayerZeroDelay time.Duration
	// LayerZeroNeverDeliver starts the bot with delivery off (Network.LayerZero().SetDeliver
	// turns it on): packets are sent and never delivered, a stuck DVN.
	LayerZeroNeverDeliver bool
}

// DefaultConfig is the full default devnet: the L1, one rollup of each VM and an external
// Cosmos chain, bridged, with bridge traffic (ICS-721 from the L1 included) on at a low rate, four funded users per chain
// and LayerZero between the L1 and an Ethereum chain (ethereum-devnet).
func DefaultConfig() Config {
	return Config{
		Chains: []ChainSpec{
			{ChainID: "initia-devnet-1", Kind: KindL1},
			{ChainID: "minievm-devnet-1", Kind: KindEVM},
			{ChainID: "minimove-devnet-1", Kind: KindMove},
			{ChainID: "miniwasm-devnet-1", Kind: KindWasm},
			{ChainID: "cosmoshub-devnet-1", Kind: KindCosmos, Prefix: "cosmos"},
		},
		Seed:          1,
		BlockInterval: 500 * time.Millisecond,
		Bridges:       true,
		BridgeTraffic: 0.15,
		NFTTraffic:    0.1,
		Users:         4,
		LayerZero:     true,
	}
}

// withDefaults fills what Start leaves to defaults and checks the chain ids.
func (cfg Config) withDefaults() (Config, error) {
	if len(cfg.Chains) == 0 {
		cfg.Chains = DefaultConfig().Chains
	}
	if cfg.BlockInterval <= 0 {
		cfg.BlockInterval = 500 * time.Millisecond
	}
	if cfg.GenesisTime.IsZero() {
		// Fixed here (not left to the engine) so every chain shares the same clock.
		cfg.GenesisTime = time.Now().UTC().Truncate(time.Second)
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	seen := map[string]bool{}
	chains := make([]ChainSpec, len(cfg.Chains))
	for i, s := range cfg.Chains {
		if s.ChainID == "" || seen[s.ChainID] {
			return cfg, fmt.Errorf("chain ids must be unique and non-empty (%q)", s.ChainID)
		}
		seen[s.ChainID] = true
		s = s.withDefaults()
		if _, err := address.Bech32(s.Prefix, make([]byte, 20)); err != nil {
			return cfg, fmt.Errorf("chain %s: bech32 prefix %q: %w", s.ChainID, s.Prefix, err)
		}
		chains[i] = s
	}
	cfg.Chains = chains
	return cfg, nil
}

// ParseChains reads the "id:kind,id:kind" form of a command-line flag (kinds l1, evm, move,
// wasm, cosmos); cosmos chains get the "cosmos" prefix, the others Initia's defaults.
func ParseChains(s string) ([]ChainSpec, error) {
	var out []ChainSpec
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, kind, ok := strings.Cut(part, ":")
		if !ok || id == "" {
			return nil, fmt.Errorf("chain %q: want <chain-id>:<kind>", part)
		}
		switch k := Kind(kind); k {
		case KindL1, KindEVM, KindMove, KindWasm:
			out = append(out, ChainSpec{ChainID: id, Kind: k})
		case KindCosmos:
			out = append(out, ChainSpec{ChainID: id, Kind: k, Prefix: "cosmos"})
		default:
			return nil, fmt.Errorf("chain %q: unknown kind %q", part, kind)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no chains")
	}
	return out, nil
}

// withDefaults fills a spec's derived fields.
func (s ChainSpec) withDefaults() ChainSpec {
	if s.Prefix == "" {
		s.Prefix = "init"
	}
	if s.Kind == KindCosmos {
		s.CosmosKeys = true
	}
	if s.FeeDenom == "" {
		switch s.Kind {
		case KindL1:
			s.FeeDenom = "uinit"
		case KindEVM:
			s.FeeDenom = "GAS"
		case KindCosmos:
			s.FeeDenom = "uatom"
		default:
			s.FeeDenom = "umin"
		}
	}
	if len(s.NativeDenoms) == 0 {
		if isRollup(s.Kind) {
			s.NativeDenoms = []string{"uusdc"}
		} else {
			s.NativeDenoms = []string{s.FeeDenom}
		}
	}
	return s
}

// name is the registry chain_name.
func (s ChainSpec) name() string {
	if s.Name != "" {
		return s.Name
	}
	if i := strings.Index(s.ChainID, "-devnet"); i > 0 {
		return s.ChainID[:i]
	}
	return s.ChainID
}

// genesisCoins is what every keyed genesis account of a chain holds: the fee token and, on
// Initia chains, uusdc (an external chain keeps only its own token).
func (s ChainSpec) genesisCoins() []engine.Coin {
	amt := big.NewInt(1_000_000_000_000_000)
	if s.FeeDenom == "GAS" {
		amt, _ = new(big.Int).SetString("1000000000000000000000000", 10) // 10^24: GAS has 18 decimals
	}
	coins := []engine.Coin{{Denom: s.FeeDenom, Amount: amt}}
	if s.Kind != KindCosmos && s.FeeDenom != "uusdc" {
		coins = append(coins, engine.Coin{Denom: "uusdc", Amount: big.NewInt(1_000_000_000_000)})
	}
	return coins
}

func isRollup(k Kind) bool {
	return k == KindEVM || k == KindMove || k == KindWasm
}
