package evm

// minievm's decimal wrapper and the ERC-20s of bank coins.
//
// On minievm every bank coin is an ERC-20 (bank-as-ERC20): a coin minted on the chain (an
// OPinit `l2/` deposit, an IBC voucher) gets one created by the chain with decimals() = 0
// (initia-labs/minievm@3470dff:x/evm/keeper/erc20.go MintCoins → CreateERC20(denom, 0);
// OPinit's first deposit calls the same TokenCreationFn). Wallets show those coins with 6
// decimals, EVM apps want 18: the ERC20Wrapper system contract
// (x/evm/contracts/erc20_wrapper/ERC20Wrapper.sol) converts a "remote" coin into an 18-decimal
// "local" ERC-20 it mints (toLocal) and back (toRemote). This file models that contract's
// observable behaviour: the same selectors and arguments, the same amounts (× or ÷
// 10^(18−remoteDecimals), dust refused), the same allowance rules, and a `Converted` log.
//
// Addresses. The wrapper lives at WrapperAddress, a fixed address of this devnet (the real
// chain deploys it at genesis and answers GET /minievm/evm/v1/contracts/erc20_wrapper, which
// the devnet serves too). The local token of (remoteDenom, remoteDecimals) is created by the
// wrapper through the factory with CREATE2 and salt keccak256(remoteDenom ‖ remoteDecimals),
// as the contract does; the devnet's init-code hash is its own constant, so WrappedAddress
// is known before the token exists (the registry lists it, as initia-registry lists
// evm/<address> assets).

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rollgate/rollgate/internal/chain/address"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	opchildv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Wrapper constants of ERC20Wrapper.sol.
const (
	// RemoteDecimals is the wrapper's default remote precision (REMOTE_DECIMALS).
	RemoteDecimals = 6
	// LocalDecimals is the precision of every wrapped local token (LOCAL_DECIMALS).
	LocalDecimals = 18
)

// WrapperAddress is the ERC20Wrapper's address on the devnet's EVM rollups.
var WrapperAddress = derivedAddress("erc20-wrapper")

// wrappedInitCodeHash stands for the factory's ERC-20 init code in the CREATE2 formula.
var wrappedInitCodeHash = crypto.Keccak256([]byte("rollgate/devnet/evm/wrapped-erc20"))

// WrappedAddress is the address of the 18-decimal local token the wrapper creates for a
// remote denom of the given precision (evm/<address> is its bank denom).
func WrappedAddress(remoteDenom string, remoteDecimals uint8) common.Address {
	salt := crypto.Keccak256Hash([]byte(remoteDenom), []byte{remoteDecimals})
	return crypto.CreateAddress2(derivedAddress("erc20-factory"), salt, wrappedInitCodeHash)
}

// WrappedDenom is the bank denom of WrappedAddress(remoteDenom, 6).
func WrappedDenom(remoteDenom string) string {
	return "evm/" + WrappedAddress(remoteDenom, RemoteDecimals).Hex()[2:]
}

var topicConverted = crypto.Keccak256Hash([]byte("Converted(string,string,uint8,uint8,uint256)"))

var convertedArgs = abi.Arguments{
	{Type: mustType("string")}, {Type: mustType("string")}, {Type: mustType("uint8")}, {Type: mustType("uint8")}, {Type: mustType("uint256")},
}

func mustType(t string) abi.Type {
	ty, err := abi.NewType(t, "", nil)
	if err != nil {
		panic("evm: abi type " + t + ": " + err.Error()) // constants of this file
	}
	return ty
}

// Wrapper state keys: the local token of a remote denom at a precision, and the remote denom
// and precision of a local token (localTokens / remoteTokens + remoteDecimals).
func localKey(remoteDenom string, dec uint8) string {
	return fmt.Sprintf("wl/%03d/%s", dec, remoteDenom)
}
func remoteKey(local common.Address) string { return "wr/" + key(local) }

type remoteRef struct {
	Denom    string `json:"denom"`
	Decimals uint8  `json:"decimals"`
}

// bankERC20 finds the ERC-20 of a bank coin at addr: registered contracts first, else a denom
// with a supply whose ERC-20 address is addr (the chain creates it on first mint).
func bankERC20(st stateReader, addr common.Address) (contract, bool) {
	if c, ok := getContract(st.Store(StoreName), addr); ok {
		return c, true
	}
	var found string
	st.Store("bank").Iterate("s/", func(k string, _ []byte) bool {
		if d := k[len("s/"):]; DenomContract(d) == addr {
			found = d
			return false
		}
		return true
	})
	if found == "" {
		return contract{}, false
	}
	return bankCoinContract(found), true
}

// bankCoinContract is the ERC-20 the chain creates for a bank coin: name and symbol the
// denom, 0 decimals, owned by the chain (not by the wrapper).
func bankCoinContract(denom string) contract {
	return contract{Kind: "erc20", Name: denom, Symbol: denom, Denom: denom}
}

// erc20Of resolves a bank denom to its ERC-20 (COSMOS_CONTRACT.to_erc20), registering the
// chain-made contract on first use.
func (x *exec) erc20Of(denom string) (common.Address, contract, bool) {
	if b, ok := x.kv.Get("d/" + denom); ok {
		a := common.HexToAddress(string(b))
		c, ok := getContract(x.kv, a)
		return a, c, ok
	}
	if supplyOf(stateAdapter{x}, denom).Sign() == 0 {
		return common.Address{}, contract{}, false
	}
	a := DenomContract(denom)
	c := bankCoinContract(denom)
	registerContract(x.kv, a, c)
	return a, c, true
}

func registerContract(kv sim.KV, a common.Address, c contract) {
	putContract(kv, a, c)
	if c.Denom != "" {
		kv.Set("d/"+c.Denom, []byte(a.Hex()))
	}
}

// ensureLocal is _ensureLocalTokenExists: the 18-decimal token of (remoteDenom, dec), owned
// by the wrapper, created on first use.
func (x *exec) ensureLocal(remoteDenom string, remote contract, dec uint8) (common.Address, contract) {
	if b, ok := x.kv.Get(localKey(remoteDenom, dec)); ok {
		a := common.HexToAddress(string(b))
		c, _ := getContract(x.kv, a)
		return a, c
	}
	a, c := createLocal(x.kv, remoteDenom, remote, dec)
	x.env.EnsureAccount(a.Bytes())
	x.creat = append(x.creat, a)
	x.logs = append(x.logs,
		ethLog{Address: a, Topics: []common.Hash{topicOwnership, {}, addrTopic(WrapperAddress)}},
		ethLog{Address: x.m.factory, Topics: []common.Hash{topicERC20Created, addrTopic(a), addrTopic(WrapperAddress)}})
	return a, c
}

func createLocal(kv sim.KV, remoteDenom string, remote contract, dec uint8) (common.Address, contract) {
	a := WrappedAddress(remoteDenom, dec)
	c := contract{Kind: "erc20", Name: "Wrapped" + remote.Name, Symbol: "W" + remote.Symbol, Decimals: LocalDecimals,
		Owner: key(WrapperAddress), Denom: "evm/" + a.Hex()[2:]}
	registerContract(kv, a, c)
	kv.Set(localKey(remoteDenom, dec), []byte(a.Hex()))
	b, _ := json.Marshal(remoteRef{Denom: remoteDenom, Decimals: dec})
	kv.Set(remoteKey(a), b)
	return a, c
}

func pow10(n uint8) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// wrapper executes the ERC20Wrapper's state-changing functions.
func (x *exec) wrapper(sender common.Address, name string, args []any) error {
	x.env.ConsumeGas(80000)
	switch name {
	case "toLocal": // toLocal(address receiver, string remoteDenom, uint8 remoteDecimals)
		receiver, denom, dec := args[0].(common.Address), args[1].(string), args[2].(uint8)
		ra, _, ok := x.erc20Of(denom)
		if !ok {
			return errReverted
		}
		// min(allowance(sender → wrapper), balance(sender)): what the deposit minted, with
		// no amount signed in advance.
		amt := getAllowance(x.kv, ra, sender, WrapperAddress)
		if bal := x.env.Balance(sender.Bytes(), denom); bal.Cmp(amt) < 0 {
			amt = bal
		}
		return x.toLocal(sender, receiver, denom, amt, dec)
	case "toLocal0": // toLocal(address receiver, string remoteDenom, uint256 remoteAmount, uint8 remoteDecimals)
		return x.toLocal(sender, args[0].(common.Address), args[1].(string), args[2].(*big.Int), args[3].(uint8))
	case "toRemote": // toRemote(address receiver, string localDenom, uint256 localAmount)
		return x.toRemote(sender, args[0].(common.Address), args[1].(string), args[2].(*big.Int))
	case "toRemoteAndOPWithdraw", "toRemoteAndOPWithdraw0": // (string receiver, string localDenom, uint256 localAmount[, uint64 gasLimit])
		return x.toRemoteAndOPWithdraw(sender, args[0].(string), args[1].(string), args[2].(*big.Int))
	case "toRemoteAndIBCTransfer", "toRemoteAndIBCTransfer0", "toRemoteAndIBCTransfer1":
		// (string localDenom, uint256 localAmount, string channel, string receiver, uint256 timeout[, string memo[, uint64 gasLimit]])
		memo := "{}"
		if len(args) > 5 {
			memo = args[5].(string)
		}
		return x.toRemoteAndIBCTransfer(sender, args[0].(string), args[1].(*big.Int), args[2].(string), args[3].(string), args[4].(*big.Int), memo)
	case "ibc_ack":
		if args[1].(bool) {
			x.kv.Delete(callbackKey(args[0].(uint64)))
			return x.onlyWrapper(sender)
		}
		return x.refundIBC(sender, args[0].(uint64))
	case "ibc_timeout":
		return x.refundIBC(sender, args[0].(uint64))
	}
	return errReverted
}

func (x *exec) toLocal(sender, receiver common.Address, remoteDenom string, amount *big.Int, dec uint8) error {
	if dec > LocalDecimals {
		return errReverted
	}
	ra, rc, ok := x.erc20Of(remoteDenom)
	if !ok {
		return errReverted
	}
	la, lc := x.ensureLocal(remoteDenom, rc, dec)
	if amount.Sign() == 0 {
		x.ret = nil
		return nil
	}
	// The bank coin's ERC-20 is the chain's, not the wrapper's: lock it in the wrapper.
	if err := x.erc20(WrapperAddress, ra, rc, "transferFrom", []any{sender, WrapperAddress, amount}); err != nil {
		return err
	}
	local := new(big.Int).Mul(amount, pow10(LocalDecimals-dec))
	if err := x.erc20(WrapperAddress, la, lc, "mint", []any{receiver, local}); err != nil {
		return err
	}
	x.converted(remoteDenom, lc.Denom, dec, LocalDecimals, amount)
	x.ret = nil
	return nil
}

func (x *exec) toRemote(sender, receiver common.Address, localDenom string, amount *big.Int) error {
	la, lc, ok := x.erc20Of(localDenom)
	if !ok {
		return errReverted
	}
	b, ok := x.kv.Get(remoteKey(la))
	if !ok {
		// The contract would create a 6-decimal remote token for a local token it never
		// wrapped; the devnet only unwraps what it wrapped.
		return errReverted
	}
	var ref remoteRef
	if json.Unmarshal(b, &ref) != nil {
		return errReverted
	}
	ra, rc, ok := x.erc20Of(ref.Denom)
	if !ok {
		return errReverted
	}
	if amount.Sign() == 0 {
		x.ret = packOut("toRemote", ra, new(big.Int), ref.Decimals)
		return nil
	}
	factor := pow10(LocalDecimals - ref.Decimals)
	remote, dust := new(big.Int).QuoRem(amount, factor, new(big.Int))
	if dust.Sign() != 0 {
		return errReverted // "dust amount should be zero"
	}
	// burnFrom(sender, amount): the wrapper owns the local token and needs the allowance.
	al := getAllowance(x.kv, la, sender, WrapperAddress)
	if al.Cmp(amount) < 0 {
		return errReverted
	}
	x.kv.Set(allowanceKey(la, sender, WrapperAddress), []byte(new(big.Int).Sub(al, amount).String()))
	if err := x.erc20(sender, la, lc, "burn", []any{amount}); err != nil {
		return err
	}
	if err := x.erc20(WrapperAddress, ra, rc, "transfer", []any{receiver, remote}); err != nil {
		return err
	}
	x.converted(localDenom, ref.Denom, LocalDecimals, ref.Decimals, amount)
	x.ret = packOut("toRemote", ra, remote, ref.Decimals)
	return nil
}

// toRemoteAndOPWithdraw converts to the remote coin held by the wrapper, then has the wrapper
// send MsgInitiateTokenWithdrawal of it to receiver on the L1 (execute_cosmos), as the
// contract does: the withdrawal's sender is the wrapper.
func (x *exec) toRemoteAndOPWithdraw(sender common.Address, receiver, localDenom string, amount *big.Int) error {
	if err := x.toRemote(sender, WrapperAddress, localDenom, amount); err != nil {
		return err
	}
	if amount.Sign() == 0 {
		x.ret = nil
		return nil
	}
	ref, remote := x.lastRemote(localDenom, amount)
	if x.m.cosmos == nil {
		return errReverted
	}
	from, err := address.Bech32(x.env.AddressPrefix(), WrapperAddress.Bytes())
	if err != nil {
		return errReverted
	}
	msg := &opchildv1.MsgInitiateTokenWithdrawal{Sender: from, To: receiver, Amount: &basev1beta1.Coin{Denom: ref.Denom, Amount: remote.String()}}
	if err := x.m.cosmos(x.env, msg); err != nil {
		return &sim.CodedError{Codespace: Codespace, Code: 23, Log: "Reverted: execute_cosmos: " + err.Error()}
	}
	x.ret = nil
	return nil
}

// ibcCallback is what the wrapper remembers of a toRemoteAndIBCTransfer until the packet's
// acknowledgement: who to give the local tokens back to if the transfer fails.
type ibcCallback struct {
	Sender      string `json:"sender"`
	LocalDenom  string `json:"local_denom"`
	LocalAmount string `json:"local_amount"`
}

func callbackKey(id uint64) string { return fmt.Sprintf("wcb/%020d", id) }

// toRemoteAndIBCTransfer converts to the remote coin held by the wrapper and has the wrapper
// send it over ICS-20 (execute_cosmos) with an EVM async callback to itself merged into the
// memo, so a failed or timed-out transfer gives the local tokens back (ibc_ack / ibc_timeout).
func (x *exec) toRemoteAndIBCTransfer(sender common.Address, localDenom string, amount *big.Int, channel, receiver string, timeout *big.Int, memo string) error {
	if err := x.toRemote(sender, WrapperAddress, localDenom, amount); err != nil {
		return err
	}
	if amount.Sign() == 0 {
		x.ret = nil
		return nil
	}
	ref, remote := x.lastRemote(localDenom, amount)
	if x.m.cosmos == nil || !timeout.IsUint64() {
		return errReverted
	}
	id := uint64(1)
	if b, ok := x.kv.Get("wcb/next"); ok {
		_, _ = fmt.Sscan(string(b), &id)
	}
	x.kv.Set("wcb/next", []byte(fmt.Sprint(id+1)))
	cb, _ := json.Marshal(ibcCallback{Sender: key(sender), LocalDenom: localDenom, LocalAmount: amount.String()})
	x.kv.Set(callbackKey(id), cb)
	var top map[string]any
	if memo == "" {
		memo = "{}"
	}
	if err := json.Unmarshal([]byte(memo), &top); err != nil || top == nil {
		return errReverted // merge_json of a memo that is not a JSON object fails
	}
	evmPart, _ := top["evm"].(map[string]any)
	if evmPart == nil {
		evmPart = map[string]any{}
	}
	evmPart["async_callback"] = map[string]any{"id": id, "contract_address": strings.ToLower(WrapperAddress.Hex())}
	top["evm"] = evmPart
	merged, err := json.Marshal(top)
	if err != nil {
		return errReverted
	}
	from, err := address.Bech32(x.env.AddressPrefix(), WrapperAddress.Bytes())
	if err != nil {
		return errReverted
	}
	msg := &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: channel, Token: &basev1beta1.Coin{Denom: ref.Denom, Amount: remote.String()},
		Sender: from, Receiver: receiver, TimeoutHeight: &clientv1.Height{}, TimeoutTimestamp: timeout.Uint64(), Memo: string(merged)}
	if err := x.m.cosmos(x.env, msg); err != nil {
		return &sim.CodedError{Codespace: Codespace, Code: 23, Log: "Reverted: execute_cosmos: " + err.Error()}
	}
	x.ret = nil
	return nil
}

// onlyWrapper is the contract's onlyContract: the callbacks come from the wrapper itself
// (the ICS-20 sender the chain calls back).
func (x *exec) onlyWrapper(sender common.Address) error {
	if sender != WrapperAddress {
		return errReverted
	}
	x.ret = nil
	return nil
}

// refundIBC is _handleFailedIbcTransfer: the refunded remote coin stays locked in the wrapper,
// the local tokens are minted back to the transfer's sender.
func (x *exec) refundIBC(sender common.Address, id uint64) error {
	if err := x.onlyWrapper(sender); err != nil {
		return err
	}
	b, ok := x.kv.Get(callbackKey(id))
	if !ok {
		return errReverted
	}
	x.kv.Delete(callbackKey(id))
	var cb ibcCallback
	if json.Unmarshal(b, &cb) != nil {
		return errReverted
	}
	la, lc, ok := x.erc20Of(cb.LocalDenom)
	amt, ok2 := new(big.Int).SetString(cb.LocalAmount, 10)
	if !ok || !ok2 {
		return errReverted
	}
	if err := x.erc20(WrapperAddress, la, lc, "mint", []any{common.HexToAddress(cb.Sender), amt}); err != nil {
		return err
	}
	x.ret = nil
	return nil
}

// lastRemote is the remote coin and amount toRemote produced for localDenom and amount.
func (x *exec) lastRemote(localDenom string, amount *big.Int) (remoteRef, *big.Int) {
	la, _, _ := x.erc20Of(localDenom)
	var ref remoteRef
	if b, ok := x.kv.Get(remoteKey(la)); ok {
		_ = json.Unmarshal(b, &ref)
	}
	return ref, new(big.Int).Quo(amount, pow10(LocalDecimals-ref.Decimals))
}

func (x *exec) converted(src, dst string, srcDec, dstDec uint8, amount *big.Int) {
	data, err := convertedArgs.Pack(src, dst, srcDec, dstDec, amount)
	if err != nil {
		return
	}
	x.logs = append(x.logs, ethLog{Address: WrapperAddress, Topics: []common.Hash{topicConverted}, Data: data})
}

// consumeSequenceFlag applies minievm's MsgCall sequence rule to the sender: the first EVM
// message of a tx consumes the ante's increment, every later MsgCall adds 1, so a tx with N
// MsgCalls advances the sender's sequence by N (MsgCreate only consumes the flag: the
// devnet's create does not touch the sequence, where minievm's decrements and the EVM nonce
// bump adds it back).
func consumeSequenceFlag(env sim.Env, sender common.Address, isCall bool) error {
	f, err := sim.As[sim.SequenceFlag](env)
	if err != nil {
		return err
	}
	p := f.SequenceIncremented()
	if p == nil {
		return nil
	}
	if isCall && !*p {
		engine.AddSequence(env.Store("auth"), sender.Bytes(), 1)
	}
	*p = false
	return nil
}

// Launch is the genesis part of a minievm rollup's launch for coins bridged from the L1: the
// launcher's 0-amount INIT deposit creates the bridged coin's ERC-20 and runs a hook that
// calls toLocal(operator, denom, 0, 6), creating the wrapped 18-decimal token
// (initia-labs/minievm@3470dff:cmd/minitiad/launch.go). Launch creates both at genesis.
type Launch struct {
	// Denoms are the bridged bank denoms (l2/<hash>).
	Denoms []string
}

// Name implements sim.Module.
func (Launch) Name() string { return "evm-launch" }

// Needs implements sim.Needer: the created tokens get auth accounts.
func (Launch) Needs() []sim.Extra { return []sim.Extra{sim.NeedAccountCreator} }

// InitGenesis implements sim.Module.
func (l Launch) InitGenesis(env sim.Env) error {
	ea, err := sim.As[sim.AccountCreator](env)
	if err != nil {
		return err
	}
	kv := env.Store(StoreName)
	for _, d := range l.Denoms {
		rc := bankCoinContract(d)
		registerContract(kv, DenomContract(d), rc)
		a, _ := createLocal(kv, d, rc, RemoteDecimals)
		ea.EnsureAccount(a.Bytes())
	}
	return nil
}

// Handlers implements sim.Module.
func (Launch) Handlers() map[string]sim.Handler { return nil }

// Routes implements sim.Module.
func (Launch) Routes(*http.ServeMux, sim.QueryAt) {}

// Traffic implements sim.Module.
func (Launch) Traffic(*rand.Rand, sim.Query, []sim.Account) []sim.Intent { return nil }

var _ sim.Module = Launch{}
