package devnet

import (
	"fmt"
	"math/big"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/oracle"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// The devnet's Connect oracle (internal/oracle): the L1 quotes every pair in every block,
// each rollup serves the L1's prices as OPinit relays them, and both serve Connect's REST
// (/connect/oracle/v2/get_all_tickers, get_price, get_prices,
// get_currency_pair_mapping_list). What follows is the ground truth a test compares a
// client's dollar figures with, and the switch that makes a pair's price go stale.

// OraclePair is one currency pair the devnet's oracle quotes.
type OraclePair struct {
	Pair     string // "INIT/USD"
	ID       uint64
	Decimals uint64
}

// OracleQuote is a pair's stored price on one chain as of one height: what that chain's
// `/connect/oracle/v2/get_price` answers with x-cosmos-block-height set to it.
type OracleQuote struct {
	Pair     string
	ID       uint64
	Decimals uint64
	Nonce    uint64
	// Price in units of 10^-Decimals USD; nil before the pair's first update (the REST
	// answer then carries price "0" and height 0, as Connect's keeper does).
	Price *big.Int
	// BlockHeight is the serving chain's height at which the price was written; BlockTime
	// is the L1 time of the price (a rollup stores the L1's timestamp).
	BlockHeight int64
	BlockTime   time.Time
}

// OraclePairs lists the pairs the oracle quotes, in id order (MIN and GAS, the rollups'
// gas tokens, have none).
func (n *Network) OraclePairs() []OraclePair {
	ps := n.oracle.Pairs()
	out := make([]OraclePair, len(ps))
	for i, p := range ps {
		out[i] = OraclePair{Pair: p.Name(), ID: uint64(i), Decimals: p.Decimals}
	}
	return out
}

// OraclePrice is the quote of pair on chain chainID as of height (0: the chain's latest),
// computed from the oracle's definition, not read back from the chain's REST. It fails for
// an unknown chain or pair and for a chain that runs no oracle (the external Cosmos chain).
func (n *Network) OraclePrice(chainID, pair string, height int64) (OracleQuote, error) {
	c, ok := n.Chain(chainID)
	if !ok {
		return OracleQuote{}, fmt.Errorf("devnet: no chain %q", chainID)
	}
	m := chainOracle(c)
	if m == nil {
		return OracleQuote{}, fmt.Errorf("devnet: %s runs no oracle", chainID)
	}
	if height <= 0 {
		height = c.Height()
	}
	q, ok := m.QuoteAt(pair, height)
	if !ok {
		return OracleQuote{}, fmt.Errorf("devnet: the oracle quotes no pair %q", pair)
	}
	return OracleQuote{Pair: q.Pair, ID: q.ID, Decimals: q.Decimals, Nonce: q.Nonce, Price: q.Price,
		BlockHeight: q.BlockHeight, BlockTime: q.BlockTime}, nil
}

// FreezeOracle stops a pair's updates from the L1's next block on, as when the oracle's
// validators stop reporting a market: the L1 keeps answering the last price with its old
// height and timestamp, and the rollups keep the old L1 timestamp. ThawOracle resumes.
func (n *Network) FreezeOracle(pair string) error {
	h, err := n.l1Height()
	if err != nil {
		return err
	}
	return n.oracle.Freeze(pair, h)
}

// ThawOracle lets a frozen pair update again from the L1's next block on.
func (n *Network) ThawOracle(pair string) error {
	h, err := n.l1Height()
	if err != nil {
		return err
	}
	return n.oracle.Thaw(pair, h)
}

func (n *Network) l1Height() (int64, error) {
	for _, c := range n.chains {
		if c.Spec.Kind == KindL1 {
			return c.Height(), nil
		}
	}
	return 0, fmt.Errorf("devnet: no L1 chain, so no oracle to freeze")
}

// oracleModule is the x/oracle of a chain kind: the L1's own, a rollup's mirror, none on an
// external Cosmos chain.
func (n *Network) oracleModule(k Kind) sim.Module {
	switch {
	case k == KindL1:
		return oracle.NewL1(n.oracle)
	case isRollup(k):
		return oracle.NewRollup(n.oracle)
	}
	return nil
}

func chainOracle(c *Chain) *oracle.Module {
	for _, m := range c.modules {
		if o, ok := m.(*oracle.Module); ok {
			return o
		}
	}
	return nil
}
