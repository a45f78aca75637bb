package devnettest

import (
	"bytes"
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/store"
)

// TestTransfersFromAContract: an ERC-20 transfer whose sender is a contract, not the tx's
// signer nor anyone the tx names. Account 0 wraps some of the fee token through the devnet's
// ERC20Wrapper (toLocal) and unwraps it to account 1 (toRemote): the wrapper itself sends the
// fee token's ERC-20 to account 1. The transfers index holds that row (from the wrapper, to
// account 1), and every keyed account's transfers still account for its balance change.
func TestTransfersFromAContract(t *testing.T) {
	var r rollup
	for _, x := range rollups {
		if x.vm() == vmkind.EVM {
			r = x
		}
	}
	n := startNet(t, netConfig())
	ctx := t.Context()
	if err := n.ProduceBlocks(ctx, 5); err != nil {
		t.Fatal(err)
	}
	dc, _ := n.Chain(r.chainID)
	ep := n.Endpoints()[r.chainID]
	ec, err := ethclient.DialContext(ctx, ep.JSONRPC)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	cid, err := ec.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	k, err := dc.Key(0)
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.ToECDSA(k.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sender := crypto.PubkeyToAddress(key.PublicKey)
	if !bytes.Equal(sender.Bytes(), dc.Accounts()[0].Addr) {
		t.Fatalf("key 0 is %s, account 0 %x", sender, dc.Accounts()[0].Addr)
	}
	receiver := common.BytesToAddress(dc.Accounts()[1].Addr)
	wrapper := common.BytesToAddress(devnet.EVMWrapperAddress())
	if code, err := ec.CodeAt(ctx, wrapper, nil); err != nil || len(code) == 0 {
		t.Fatalf("no wrapper contract at %s: %v", wrapper, err)
	}
	rest, err := cosmosrest.New(ep.REST)
	if err != nil {
		t.Fatal(err)
	}
	gasAddr, err := rest.ContractByDenom(ctx, "GAS")
	if err != nil {
		t.Fatal(err)
	}
	gas := common.HexToAddress(gasAddr)
	amount := big.NewInt(1_000_000)
	send := func(to common.Address, method string, args ...any) *types.Receipt {
		t.Helper()
		data, err := devnet.EVMCallData(method, args...)
		if err != nil {
			t.Fatal(err)
		}
		nonce, err := ec.PendingNonceAt(ctx, sender)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: cid, Nonce: nonce, GasTipCap: new(big.Int), GasFeeCap: new(big.Int),
			Gas: 1_000_000, To: &to, Data: data}), types.LatestSignerForChainID(cid), key)
		if err != nil {
			t.Fatal(err)
		}
		if err := ec.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if err := n.ProduceBlock(ctx); err != nil {
			t.Fatal(err)
		}
		rc, err := ec.TransactionReceipt(ctx, tx.Hash())
		if err != nil || rc.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("%s: receipt %v %+v", method, err, rc)
		}
		return rc
	}
	send(gas, "approve", wrapper, amount)
	rc := send(wrapper, "toLocal0", sender, "GAS", amount, uint8(18)) // toLocal(receiver, denom, amount, decimals)
	var local common.Address                                          // the wrapped token: its mint to the sender is a Transfer from 0x0
	transferTopic := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	for _, l := range rc.Logs {
		if len(l.Topics) == 3 && l.Topics[0] == transferTopic && l.Topics[1] == (common.Hash{}) && l.Address != gas {
			local = l.Address
		}
	}
	if local == (common.Address{}) {
		t.Fatalf("toLocal minted nothing: %+v", rc.Logs)
	}
	send(local, "approve", wrapper, amount)
	rc = send(wrapper, "toRemote", receiver, "evm/"+local.Hex()[2:], amount)
	if err := n.ProduceBlocks(ctx, 2); err != nil {
		t.Fatal(err)
	}

	tip := dc.Height()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			db := openStore(t, be.dsn(t))
			ictx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			if err := ingestChain(ictx, ep, r, db, tip); err != nil {
				t.Fatal(err)
			}
			page, err := db.Transfers(ictx, store.TransferFilter{Account: receiver.Bytes(), MinHeight: int64(rc.BlockNumber.Uint64()),
				MaxHeight: int64(rc.BlockNumber.Uint64())}, store.Page{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, tr := range page.Transfers {
				if tr.Kind == store.TransferERC20 && bytes.Equal(tr.From, wrapper.Bytes()) && bytes.Equal(tr.To, receiver.Bytes()) &&
					tr.Amount == amount.String() && bytes.Equal(tr.Contract, gas.Bytes()) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no ERC-20 transfer of %s GAS from the wrapper %s to %s at height %d: %+v", amount, wrapper, receiver, rc.BlockNumber, page.Transfers)
			}
			checkTransfers(t, db, dc, ep, r, 1, tip)
		})
	}
}
