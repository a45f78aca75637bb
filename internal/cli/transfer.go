package cli

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/router/client"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// routeFlags are the asset pair and amount `route` and `transfer` share.
type routeFlags struct {
	Router               string
	FromChain, FromDenom string
	ToChain, ToDenom     string
	Amount               string
	OPWithdraw, MultiTx  bool
	JSON                 bool
}

func (r *routeFlags) register(f *flags) {
	f.String(&r.Router, "router", "http://127.0.0.1:8090", "router API base URL", "ROLLGATE_ROUTER")
	f.String(&r.FromChain, "from-chain", "", "source chain id (required)")
	f.String(&r.FromDenom, "from-denom", "", "source denom (required)")
	f.String(&r.ToChain, "to-chain", "", "destination chain id (required)")
	f.String(&r.ToDenom, "to-denom", "", "destination denom (required)")
	f.String(&r.Amount, "amount", "", "amount in the source denom's base unit (required)")
	f.Bool(&r.OPWithdraw, "op-withdraw", false, "take the OPinit withdrawal (claimed on L1) instead of IBC out of a rollup")
	f.Bool(&r.MultiTx, "multi-tx", false, "allow routes that need several transactions (transfer signs each in turn, after the one before has completed)")
	f.Bool(&r.JSON, "json", false, "print the router's JSON answer")
}

func (r *routeFlags) request() (route.Request, error) {
	if r.FromChain == "" || r.FromDenom == "" || r.ToChain == "" || r.ToDenom == "" || r.Amount == "" {
		return route.Request{}, usagef("--from-chain, --from-denom, --to-chain, --to-denom and --amount are required")
	}
	req := route.Request{AmountIn: r.Amount, SourceAssetChainID: r.FromChain, SourceAssetDenom: r.FromDenom,
		DestAssetChainID: r.ToChain, DestAssetDenom: r.ToDenom}
	// rollgate's own signer builds amount hooks (/op-hook with amount_in), so it keeps the
	// single-transaction routes that continue after a deposit (route.Request.AllowAmountHooks).
	req.AllowAmountHooks = true
	req.IsOPWithdraw = r.OPWithdraw
	if r.MultiTx {
		t := true
		req.AllowMultiTx = &t
	}
	return req, nil
}

// printRoute writes one line for the route and one per operation.
func printRoute(w io.Writer, rt *route.Route) {
	fmt.Fprintf(w, "%s %s on %s → %s %s on %s: %d operation(s), %d tx(s), ~%ds%s\n", rt.AmountIn, rt.SourceAssetDenom, rt.SourceAssetChainID,
		rt.AmountOut, rt.DestAssetDenom, rt.DestAssetChainID, len(rt.Operations), rt.TxsRequired, rt.EstimatedRouteDurationSeconds,
		map[bool]string{true: ", needs an op hook", false: ""}[rt.RequiredOPHook])
	for i, op := range rt.Operations {
		h := op.Hop()
		kind := h.Label
		switch {
		case kind == "":
			kind = "?"
		case h.Via != "":
			kind += " " + h.Via
		}
		fmt.Fprintf(w, "  %d. [tx %d] %-20s %s %s → %s %s\n", i+1, h.TxIndex, kind, h.FromChainID, h.DenomIn, h.ToChainID, h.DenomOut)
	}
	for _, s := range rt.ExtraInfos {
		fmt.Fprintf(w, "  note: %s\n", s)
	}
}

func runRouteCmd(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "route")
	var r routeFlags
	r.register(f)
	if err := f.parse(args); err != nil {
		return err
	}
	req, err := r.request()
	if err != nil {
		return err
	}
	rt, err := client.New(r.Router).Route(ctx, req)
	if err != nil {
		return err
	}
	if r.JSON {
		b, _ := json.MarshalIndent(rt, "", "  ")
		fmt.Fprintln(env.Stdout, string(b))
		return nil
	}
	printRoute(env.Stdout, rt)
	return nil
}

// wallet signs for one key on every chain of a route.
type wallet struct {
	secret, hdPath string
	chains         map[string]wire.Chain
}

// key is the signer on chainID: Initia chains ("init" addresses) and EVM chains use
// eth_secp256k1 keys, others the Cosmos SDK's secp256k1; the same secret serves both.
func (w *wallet) key(chainID string) (*txcodec.PrivKey, error) {
	typ := txcodec.Secp256k1
	if w.chains[chainID].Bech32Prefix == "init" || w.evm(chainID) {
		typ = txcodec.EthSecp256k1
	}
	if b, err := hex.DecodeString(strings.TrimPrefix(w.secret, "0x")); err == nil && len(b) == 32 {
		return txcodec.NewPrivKey(typ, b)
	}
	if len(strings.Fields(w.secret)) < 12 {
		return nil, usagef("--from must be a 32-byte hex private key or a BIP-39 mnemonic")
	}
	return txcodec.PrivKeyFromMnemonic(typ, w.secret, w.path(typ))
}

// path is the BIP-32 path of the mnemonic's key for a key type: --hd-path when given, else
// the path the chain's wallets derive, so `--from <mnemonic>` signs for the address a wallet
// importing the same mnemonic shows (and `rollgate up` funds): coin type 60 with
// eth_secp256k1 on Initia chains (initia.js MnemonicKey's default,
// initia-labs/initia.js@22b7c1f:src/key/MnemonicKey.ts lines 7, 39-40, 86), coin type 118
// with secp256k1 on Cosmos chains.
func (w *wallet) path(typ txcodec.KeyType) string {
	if w.hdPath != "" {
		return w.hdPath
	}
	if typ == txcodec.EthSecp256k1 {
		return "m/44'/60'/0'/0/0"
	}
	return "m/44'/118'/0'/0/0"
}

func (w *wallet) address(chainID string) (string, error) {
	k, err := w.key(chainID)
	if err != nil {
		return "", err
	}
	if w.evm(chainID) {
		return common.BytesToAddress(k.Address()).Hex(), nil
	}
	return address.Bech32(w.chains[chainID].Bech32Prefix, k.Address())
}

// skipChainTypeEVM is /v2/info/chains' chain_type of an EVM chain (Skip's wire value).
const skipChainTypeEVM = "evm"

// evm reports whether chainID is an EVM chain (its txs are Ethereum txs, its addresses 0x).
func (w *wallet) evm(chainID string) bool { return w.chains[chainID].ChainType == skipChainTypeEVM }

// sendEVM sends an evm_tx (its approvals first) from the wallet's Ethereum key (coin type 60,
// as on Initia chains) over the chain's JSON-RPC (the router's rpc for it) and returns its hash.
func (w *wallet) sendEVM(ctx context.Context, tx msgs.EVMTx) (string, error) {
	c := w.chains[tx.ChainID]
	if c.RPC == "" {
		return "", fmt.Errorf("%s: the router names no JSON-RPC endpoint", tx.ChainID)
	}
	rpc, err := evmrpc.New(c.RPC)
	if err != nil {
		return "", err
	}
	k, err := w.key(tx.ChainID)
	if err != nil {
		return "", err
	}
	ek, err := crypto.ToECDSA(k.Bytes())
	if err != nil {
		return "", err
	}
	return (&client.EVMWallet{RPC: rpc, Key: ek}).Send(ctx, tx)
}

// sign builds a signed TxRaw of amino-JSON messages on chainID (SIGN_MODE_DIRECT).
func (w *wallet) sign(ctx context.Context, chainID string, list []msgs.CosmosMsg, gas uint64) ([]byte, error) {
	var ms []proto.Message
	for _, m := range list {
		pm, err := txcodec.UnmarshalAmino(m.MsgTypeURL, []byte(m.Msg))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.MsgTypeURL, err)
		}
		ms = append(ms, pm)
	}
	return w.signProto(ctx, chainID, ms, gas)
}

// signProto signs protobuf messages on chainID with the account's number and sequence read
// over the chain's REST.
func (w *wallet) signProto(ctx context.Context, chainID string, ms []proto.Message, gas uint64) ([]byte, error) {
	k, err := w.key(chainID)
	if err != nil {
		return nil, err
	}
	addr, err := w.address(chainID)
	if err != nil {
		return nil, err
	}
	c := w.chains[chainID]
	if c.REST == "" {
		return nil, fmt.Errorf("%s: the router names no REST endpoint to read the account from", chainID)
	}
	rest, err := cosmosrest.New(c.REST)
	if err != nil {
		return nil, err
	}
	raw, err := rest.Account(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("account %s on %s: %w", addr, chainID, err)
	}
	num, seq, err := devnet.ParseAccount(raw)
	if err != nil {
		return nil, err
	}
	b := txcodec.Builder{ChainID: chainID, Msgs: ms, GasLimit: gas, SignMode: txcodec.SignModeDirect,
		Signers: []txcodec.Signer{{Key: k, AccountNumber: num, Sequence: seq}}}
	return b.Build()
}

// claim sends the L1 claim of a claimable withdrawal: MsgFinalizeTokenWithdrawal built from
// the executor's /withdrawal/{sequence} (proofs, output index, roots), signed by the wallet's
// L1 address (anyone may claim; the funds go to the withdrawal's recipient).
func (w *wallet) claim(ctx context.Context, cl *client.Client, l1 string, wd *track.Withdrawal) (string, error) {
	x, err := client.Withdrawal(ctx, wd.ExecutorURL, wd.L2Sequence)
	if err != nil {
		return "", err
	}
	sender, err := w.address(l1)
	if err != nil {
		return "", err
	}
	m := x.Claim(sender)
	raw, err := w.signProto(ctx, l1, []proto.Message{m}, 1_000_000)
	if err != nil {
		return "", err
	}
	res, err := cl.Submit(ctx, l1, raw)
	if err != nil {
		return "", err
	}
	return res.TxHash, nil
}

func runTransfer(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "transfer")
	var r routeFlags
	var from, to, hdPath string
	var interval, timeout time.Duration
	r.register(f)
	f.String(&from, "from", "", "signer: 32-byte hex private key or BIP-39 mnemonic (required)", "ROLLGATE_FROM")
	f.String(&hdPath, "hd-path", "", "BIP-32 path of a mnemonic's key on every chain (default: what wallets derive, m/44'/60'/0'/0/0 on Initia chains, m/44'/118'/0'/0/0 on Cosmos chains)")
	f.String(&to, "to", "", "recipient on the destination chain (default: the signer's own address there)")
	f.Duration(&interval, "interval", time.Second, "status poll interval")
	f.Duration(&timeout, "timeout", 10*time.Minute, "give up after")
	if err := f.parse(args); err != nil {
		return err
	}
	if from == "" {
		return usagef("--from (ROLLGATE_FROM) is required")
	}
	req, err := r.request()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cl := client.New(r.Router)
	w := &wallet{secret: strings.TrimSpace(from), hdPath: hdPath, chains: map[string]wire.Chain{}}
	chains, err := cl.Chains(ctx)
	if err != nil {
		return err
	}
	for _, c := range chains {
		w.chains[c.ChainID] = c
	}
	rt, err := cl.Route(ctx, req)
	if err != nil {
		return err
	}
	printRoute(env.Stdout, rt)
	if rt.TxsRequired != 1 && !r.MultiTx {
		// The router allows multi-tx routes by default (its default_allow_multi_tx): refused
		// before anything is signed unless asked for.
		return fmt.Errorf("the route needs %d transactions; pass --multi-tx to sign and send each in turn", rt.TxsRequired)
	}
	if to == "" {
		if to, err = w.address(rt.DestAssetChainID); err != nil {
			return err
		}
	}
	addrs := make([]string, len(rt.RequiredChainAddresses))
	for i, c := range rt.RequiredChainAddresses {
		if addrs[i], err = w.address(c); err != nil {
			return err
		}
	}
	addrs[len(addrs)-1] = to
	mreq := msgs.Request{SourceAssetDenom: rt.SourceAssetDenom, SourceAssetChainID: rt.SourceAssetChainID, DestAssetDenom: rt.DestAssetDenom,
		DestAssetChainID: rt.DestAssetChainID, AmountIn: rt.AmountIn, AmountOut: rt.AmountOut, AddressList: addrs,
		Operations: rt.Operations, SlippageTolerancePercent: "1"}
	if rt.TxsRequired > 1 {
		// Every tx is built now and sent in turn: its IBC timeouts must outlast the wait for
		// the ones before it (a withdrawal's finalization period), so they are as long as
		// transfer waits.
		mreq.TimeoutSeconds = strconv.Itoa(int(max(timeout, time.Minute).Seconds()))
	}
	if rt.RequiredOPHook {
		src, err := w.address(rt.SourceAssetChainID)
		if err != nil {
			return err
		}
		hook, err := cl.OPHook(ctx, wire.OPHookRequest{SourceAddress: src, SourceAssetChainID: rt.SourceAssetChainID, SourceAssetDenom: rt.SourceAssetDenom,
			DestAddress: to, DestAssetChainID: rt.DestAssetChainID, DestAssetDenom: rt.DestAssetDenom, AmountIn: rt.AmountIn,
			AllowAmountHooks: true})
		if err != nil {
			return err
		}
		// Signed like InterwovenKit signs it: a full tx on the rollup, gas 1, run by the deposit.
		raw, err := w.sign(ctx, hook.ChainID, hook.Hook, 1)
		if err != nil {
			return fmt.Errorf("op hook: %w", err)
		}
		signer, _ := w.address(hook.ChainID)
		mreq.SignedOPHook = &msgs.SignedOPHook{Signer: signer, Hook: base64.StdEncoding.EncodeToString(raw)}
	}
	mr, err := cl.Msgs(ctx, mreq)
	if err != nil {
		return err
	}
	if len(mr.Txs) == 0 {
		return fmt.Errorf("the router returned no txs")
	}
	// Each tx is signed and sent once the one before has completed: a later tx spends what the
	// earlier one delivered (an OFT send's arrival on the L1, then its deposit to the rollup).
	for i, tx := range mr.Txs {
		if len(mr.Txs) > 1 {
			fmt.Fprintf(env.Stdout, "tx %d of %d\n", i+1, len(mr.Txs))
		}
		if err := w.runTx(ctx, env, cl, tx, interval); err != nil {
			return err
		}
	}
	return nil
}

// runTx signs and sends one tx of the route and follows it to its end.
func (w *wallet) runTx(ctx context.Context, env *Env, cl *client.Client, tx msgs.Tx, interval time.Duration) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var chainID string
	var sub *track.TrackResponse
	switch {
	case tx.CosmosTx != nil:
		chainID = tx.CosmosTx.ChainID
		raw, err := w.sign(ctx, chainID, tx.CosmosTx.Msgs, 2_000_000)
		if err != nil {
			return err
		}
		if sub, err = cl.Submit(ctx, chainID, raw); err != nil {
			return err
		}
	case tx.EVMTx != nil:
		chainID = tx.EVMTx.ChainID
		hash, err := w.sendEVM(ctx, *tx.EVMTx)
		if err != nil {
			return fmt.Errorf("evm tx on %s: %w", chainID, err)
		}
		// Sent by the wallet itself: the router only tracks it.
		if sub, err = cl.Track(ctx, chainID, hash); err != nil {
			return err
		}
	default:
		return fmt.Errorf("the router returned a tx with neither cosmos_tx nor evm_tx")
	}
	fmt.Fprintf(env.Stdout, "submitted %s on %s (%s)\n", sub.TxHash, chainID, sub.ExplorerLink)
	printed := map[int]string{}
	claimed := map[string]bool{}
	var claimErr error
	// On a terminal each hop keeps one line, redrawn in place; elsewhere (logs, pipes) a hop's
	// line is printed again whenever it changes.
	live, drawn := isTerminal(env.Stdout), 0
	final, err := cl.Wait(ctx, chainID, sub.TxHash, interval, func(s *track.StatusResponse) {
		if live {
			if drawn > 0 {
				fmt.Fprintf(env.Stdout, "\x1b[%dA", drawn)
			}
			for i, h := range s.TransferSequence {
				fmt.Fprintf(env.Stdout, "\r\x1b[2K%s\n", hopLine(i, h))
			}
			drawn = len(s.TransferSequence)
		}
		for i, h := range s.TransferSequence {
			line := hopLine(i, h)
			if !live && printed[i] != line {
				printed[i] = line
				fmt.Fprintln(env.Stdout, line)
			}
			// A claimable OP withdrawal is claimed on L1 once; the tracker then sees the claim.
			if op := h.OPInitTransfer; op != nil && op.Withdrawal != nil && op.Withdrawal.State == track.WithdrawalClaimable && !claimed[op.Withdrawal.L2Sequence] {
				claimed[op.Withdrawal.L2Sequence] = true
				hash, err := w.claim(ctx, cl, op.ToChainID, op.Withdrawal)
				if err != nil {
					claimErr = err
					cancel()
					return
				}
				fmt.Fprintf(env.Stdout, "claim submitted %s on %s\n", hash, op.ToChainID)
				drawn = 0 // the hop lines are above this message now: redraw below it
			}
		}
	})
	if claimErr != nil {
		return fmt.Errorf("claiming the withdrawal: %w", claimErr)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s (%s)\n", final.Status, final.State)
	return outcome(final)
}

// outcome is the result of a terminal status: the state says it, since status is
// STATE_COMPLETED on failures too (docs/router-api.md, "Terminal status").
func outcome(final *track.StatusResponse) error {
	if final.State == track.StateCompletedSuccess {
		return nil
	}
	msg := final.State
	if final.Error != nil {
		msg = final.Error.Message
	}
	return fmt.Errorf("transfer failed: %s", msg)
}

// isTerminal reports whether w is a character device (a terminal), where lines can be redrawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// hopLine is one progress line for hop i: its kind, chains, state and latest tx.
func hopLine(i int, t track.TransferEvent) string {
	h := t.Hop()
	if h.Bridge == "" {
		return fmt.Sprintf("hop %d  (unknown kind)", i+1)
	}
	s := fmt.Sprintf("hop %d  %-7s %s → %s  %s%s", i+1, h.Bridge, h.FromChainID, h.ToChainID, h.State, lastTx(h.Txs...))
	if w := h.Withdrawal; w != nil {
		s += "  " + w.State
		if w.ClaimableAt != "" && w.State != track.WithdrawalClaimed {
			s += " (claimable at " + w.ClaimableAt + ")"
		}
	}
	if h.Error != "" {
		s += "  error: " + h.Error
	}
	return s
}

func lastTx(txs ...*track.ChainTx) string {
	for i := len(txs) - 1; i >= 0; i-- {
		if txs[i] != nil {
			return "  " + txs[i].ChainID + " " + txs[i].TxHash[:12] + "…"
		}
	}
	return ""
}
