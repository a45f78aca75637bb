package client

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/router/msgs"
)

// EVMWallet sends a /msgs evm_tx the way a browser wallet does on an EVM chain: each required
// ERC-20 approval first (approve(spender, amount), waited for), then the call itself, every
// one an EIP-155 signed tx sent with eth_sendRawTransaction; nonce, gas price and gas limit
// come from the chain (eth_getTransactionCount pending, eth_gasPrice, eth_estimateGas).
type EVMWallet struct {
	RPC *evmrpc.Client
	Key *ecdsa.PrivateKey
	// Poll is how often a receipt is asked for (250 ms).
	Poll time.Duration
}

var approveABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"approve","inputs":[{"name":"spender","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"type":"bool"}]}]`))
	if err != nil {
		panic(err) // constant input
	}
	return a
}()

// Address is the wallet's account.
func (w *EVMWallet) Address() common.Address { return crypto.PubkeyToAddress(w.Key.PublicKey) }

// Send runs tx's approvals, then tx, and returns tx's hash (0x hex) once it is mined
// successfully.
func (w *EVMWallet) Send(ctx context.Context, tx msgs.EVMTx) (string, error) {
	for _, a := range tx.RequiredERC20Approvals {
		amt, ok := new(big.Int).SetString(a.Amount, 10)
		if !ok {
			return "", fmt.Errorf("approval amount %q", a.Amount)
		}
		data, err := approveABI.Pack("approve", common.HexToAddress(a.Spender), amt)
		if err != nil {
			return "", err
		}
		h, err := w.send(ctx, common.HexToAddress(a.TokenContract), new(big.Int), data)
		if err != nil {
			return "", fmt.Errorf("approve %s for %s: %w", a.TokenContract, a.Spender, err)
		}
		if err := w.mined(ctx, h); err != nil {
			return "", fmt.Errorf("approve %s: %w", h, err)
		}
	}
	value, ok := new(big.Int).SetString(or(tx.Value, "0"), 10)
	if !ok {
		return "", fmt.Errorf("value %q", tx.Value)
	}
	data, err := hexutil.Decode("0x" + strings.TrimPrefix(tx.Data, "0x"))
	if err != nil {
		return "", fmt.Errorf("data: %w", err)
	}
	h, err := w.send(ctx, common.HexToAddress(tx.To), value, data)
	if err != nil {
		return "", err
	}
	return h, w.mined(ctx, h)
}

func or(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

func (w *EVMWallet) send(ctx context.Context, to common.Address, value *big.Int, data []byte) (string, error) {
	from := w.Address()
	var chainID, nonce, price, gas hexutil.Big
	if err := w.RPC.Call(ctx, "eth_chainId", nil, &chainID); err != nil {
		return "", err
	}
	if err := w.RPC.Call(ctx, "eth_getTransactionCount", []any{from.Hex(), "pending"}, &nonce); err != nil {
		return "", err
	}
	if err := w.RPC.Call(ctx, "eth_gasPrice", nil, &price); err != nil {
		return "", err
	}
	call := map[string]string{"from": from.Hex(), "to": to.Hex(), "value": hexutil.EncodeBig(value), "data": hexutil.Encode(data)}
	if err := w.RPC.Call(ctx, "eth_estimateGas", []any{call}, &gas); err != nil {
		return "", fmt.Errorf("estimate gas: %w", err)
	}
	limit := gas.ToInt().Uint64() * 3 / 2 // headroom: state may move between estimate and inclusion
	signed, err := types.SignNewTx(w.Key, types.LatestSignerForChainID(chainID.ToInt()), &types.LegacyTx{Nonce: nonce.ToInt().Uint64(),
		GasPrice: price.ToInt(), Gas: limit, To: &to, Value: value, Data: data})
	if err != nil {
		return "", err
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return "", err
	}
	var hash string
	if err := w.RPC.Call(ctx, "eth_sendRawTransaction", []any{hexutil.Encode(raw)}, &hash); err != nil {
		return "", err
	}
	return hash, nil
}

// mined waits for the tx's receipt and says whether it succeeded.
func (w *EVMWallet) mined(ctx context.Context, hash string) error {
	poll := w.Poll
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	for {
		r, err := w.RPC.TransactionReceipt(ctx, hash)
		switch {
		case err == nil && r.Status == 1:
			return nil
		case err == nil:
			return fmt.Errorf("tx %s reverted", hash)
		case !errors.Is(err, evmrpc.ErrNotFound):
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}
