package ingest

// The transfers index: every movement of a token in a block's txs, extracted in the fetch
// stage and written with the block (store.TransferRows in BlockBundle.Extensions).
//
// Every chain reports its x/bank movements as bank events (transfer, coinbase, burn); the
// bridge events of the same tx (ICS-20 packets, OPinit deposits and withdrawals) name the
// other chain's side of some of them. What a VM moves on its own (ERC-20/721 logs, CW20/721
// contract events, Move fungible-asset events) is read by the kind's TransferVM, which the VM
// profile hands to Transfers. A VM that reports a bank movement a second time (minievm's
// ERC-20 log of every bank send, Move's withdraw and deposit events of every coin) yields one
// transfer: the VM's movement that matches a bank one of the same tx (same sender, recipient
// and amount) only adds its contract to it.

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/rollgate/rollgate/internal/store"
)

// TransferVM reads the token movements a VM reports itself in one tx's events: one
// implementation per VM kind (EVMTransfers, MoveTransfers, WasmTransfers), chosen by the VM
// profile.
type TransferVM interface {
	// bind keeps what the VM's reading needs of the pipeline's source.
	bind(p *Pipeline) error
	// movements returns the tx's VM movements, each with the index of the event that
	// reports it. TxIndex and MsgIndex are filled by the caller.
	movements(ctx context.Context, x *AccountExtractor, events []Event) ([]vmMovement, error)
	// bankDenom is the VM's name of a bank denom, so a token has one name whichever event
	// reported its movement.
	bankDenom(d string) string
	// name is the name of a token movements left unnamed (a Move asset) when no bank movement
	// of the same block named its contract.
	name(t *store.Transfer) string
}

// vmMovement is a movement and the index of its event in the tx. echo marks a VM movement
// that may be a bank movement reported again (mergeVM).
type vmMovement struct {
	event int
	echo  bool
	t     store.Transfer
}

// Transfers is the transfers-index extension with vm reading the VM's own movements (nil:
// bank and bridge events only).
func Transfers(vm TransferVM) Extension { return &transfers{vm: vm} }

type transfers struct {
	noHooks
	vm TransferVM
	x  *AccountExtractor
}

func (*transfers) Name() string  { return "transfers" }
func (*transfers) Needs() string { return "nothing beyond the core" }

func (t *transfers) bind(p *Pipeline) error {
	t.x = p.builder.extractor
	if t.vm != nil {
		return t.vm.bind(p)
	}
	return nil
}

func (t *transfers) extract(ctx context.Context, blk *RawBlock, results []TxResult, b *store.BlockBundle) error {
	var rows store.TransferRows
	for i, r := range results {
		got, err := t.txTransfers(ctx, i, r.Events)
		if err != nil {
			return fmt.Errorf("height %d: %w: transfers of tx %d: %w", blk.Height, ErrInvalidData, i, err)
		}
		rows = append(rows, got...)
	}
	t.name(rows)
	if len(rows) > 0 {
		b.Extensions = append(b.Extensions, rows)
	}
	return nil
}

// TxTransfers reads the transfers of one tx (the txIndex-th of its block) from its events as
// the extension does during ingestion, with vm the kind's reading (nil: bank and bridge events
// only) and prefix the chain's bech32 prefix: the reading of a backfill from stored txs, which
// carry their events. A Move reading without a source names assets move/<metadata hex>.
func TxTransfers(ctx context.Context, vm TransferVM, prefix string, txIndex int, events []Event) ([]store.Transfer, error) {
	t := &transfers{vm: vm, x: NewAccountExtractor(prefix)}
	rows, err := t.txTransfers(ctx, txIndex, events)
	if err == nil {
		t.name(rows)
	}
	return rows, err
}

// name names the movements a VM left unnamed: a token whose contract a bank movement of the
// same rows lent (a Move coin moved by 0x1::coin::transfer, with no bank event, beside the
// fee it paid through x/bank) takes that bank denom, any other the VM's name for it. The rows
// of one block name each other alike whatever was ingested before, so a replay stores the
// same bytes.
func (t *transfers) name(rows []store.Transfer) {
	var known map[string]string
	for i := range rows {
		if rows[i].Denom != "" {
			continue
		}
		if known == nil {
			known = map[string]string{}
			for _, r := range rows {
				if r.Denom != "" && r.Contract != nil && isBankKind(r.Kind) {
					if _, ok := known[string(r.Contract)]; !ok {
						known[string(r.Contract)] = r.Denom
					}
				}
			}
		}
		if d, ok := known[string(rows[i].Contract)]; ok {
			rows[i].Denom = d
		} else if t.vm != nil {
			rows[i].Denom = t.vm.name(&rows[i])
		}
	}
}

// isBankKind reports a movement read from bank events (possibly as a bridge leg).
func isBankKind(k string) bool {
	switch k {
	case store.TransferSend, store.TransferMint, store.TransferBurn, store.TransferIBCSend, store.TransferIBCReceive,
		store.TransferDeposit, store.TransferWithdrawal:
		return true
	}
	return false
}

// txTransfers is TxTransfers with the extension's extractor and reading.
func (t *transfers) txTransfers(ctx context.Context, txIndex int, events []Event) ([]store.Transfer, error) {
	bank, err := bankMovements(t.x, events)
	if err != nil {
		return nil, err
	}
	annotateBridges(t.x, events, bank)
	if t.vm != nil {
		for i := range bank {
			bank[i].t.Denom = t.vm.bankDenom(bank[i].t.Denom)
		}
		vm, err := t.vm.movements(ctx, t.x, events)
		if err != nil {
			return nil, err
		}
		bank = mergeVM(bank, vm)
	}
	sort.SliceStable(bank, func(i, j int) bool { return bank[i].event < bank[j].event })
	out := make([]store.Transfer, len(bank))
	for i, m := range bank {
		m.t.TxIndex = txIndex
		m.t.MsgIndex = msgIndex(events[m.event])
		out[i] = m.t
	}
	return out, nil
}

// msgIndex is an event's msg_index attribute (SDK 0.50 sets it on the events of messages, not
// on the ante handler's); -1 without one.
func msgIndex(ev Event) int {
	for _, a := range ev.Attributes {
		if a.Key == "msg_index" {
			if n, err := strconv.Atoi(a.Value); err == nil && n >= 0 {
				return n
			}
		}
	}
	return -1
}

// bankMovements reads the x/bank events of a tx: transfer (one movement per coin; a
// multi-send's outputs carry no sender, which is the input's coin_spent spender before
// them), coinbase (a mint to the minter) and burn.
func bankMovements(x *AccountExtractor, events []Event) ([]vmMovement, error) {
	var out []vmMovement
	var spender string
	for i, ev := range events {
		var from, to, amount, kind string
		switch ev.Type {
		case "coin_spent":
			spender = eventAttrs(ev)["spender"]
			continue
		case "transfer":
			a := eventAttrs(ev)
			from, to, amount, kind = a["sender"], a["recipient"], a["amount"], store.TransferSend
			if from == "" {
				from = spender
			}
			if from == "" || to == "" {
				continue // another module's event of the same name
			}
		case "coinbase":
			a := eventAttrs(ev)
			to, amount, kind = a["minter"], a["amount"], store.TransferMint
			if to == "" {
				continue
			}
		case "burn":
			a := eventAttrs(ev)
			from, amount, kind = a["burner"], a["amount"], store.TransferBurn
			if from == "" {
				continue
			}
		default:
			continue
		}
		if amount == "" {
			continue
		}
		var fromB, toB []byte
		var ok bool
		if from != "" {
			if fromB, ok = x.ParseAddress(from); !ok {
				return nil, fmt.Errorf("bank %s sender %.80q", ev.Type, from)
			}
		}
		if to != "" {
			if toB, ok = x.ParseAddress(to); !ok {
				return nil, fmt.Errorf("bank %s recipient %.80q", ev.Type, to)
			}
		}
		coins, err := parseCoinsExact(amount)
		if err != nil {
			return nil, err
		}
		for _, c := range coins {
			out = append(out, vmMovement{event: i, t: store.Transfer{Kind: kind, From: fromB, To: toB, Denom: c.denom, Amount: c.amount}})
		}
	}
	return out, nil
}

type exactCoin struct{ denom, amount string }

// parseCoinsExact reads an SDK coins string keeping each denom as written (the transfers name
// the denom as the chain does; the rich list lowercases them as rollytics does).
func parseCoinsExact(s string) ([]exactCoin, error) {
	cs, err := parseCoinsCase(s)
	if err != nil {
		return nil, err
	}
	out := make([]exactCoin, len(cs))
	for i, c := range cs {
		out[i] = exactCoin{denom: c.denom, amount: c.amount.String()}
	}
	return out, nil
}

// annotateBridges turns the bank movements that are one leg of a bridge transfer into that
// leg: the credit of a received ICS-20 packet, the escrow of one sent, the credit of an OPinit
// deposit and the debit of a withdrawal, each with the other chain's side.
func annotateBridges(x *AccountExtractor, events []Event, rows []vmMovement) {
	claim := func(kind string, match func(t *store.Transfer) bool, counterparty, remote string) {
		for i := range rows {
			t := &rows[i].t
			if t.Kind == store.TransferSend && match(t) {
				t.Kind, t.Counterparty, t.CounterpartyAddr = kind, counterparty, remote
				return
			}
		}
	}
	parse := func(s string) []byte {
		b, _ := x.ParseAddress(s)
		return b
	}
	var recvChannels, sendChannels []string
	recv, send := 0, 0
	for _, ev := range events {
		switch ev.Type {
		case "recv_packet":
			recvChannels = append(recvChannels, eventAttrs(ev)["packet_dst_channel"])
		case "send_packet":
			sendChannels = append(sendChannels, eventAttrs(ev)["packet_src_channel"])
		}
	}
	for _, ev := range events {
		a := eventAttrs(ev)
		switch ev.Type {
		case "fungible_token_packet":
			// The receive side names the receiver and the amount; an acknowledgement's event
			// has no recv_packet before it and leaves the rows alone.
			if a["receiver"] == "" || a["amount"] == "" || recv >= len(recvChannels) || a["success"] == "false" {
				continue
			}
			to := parse(a["receiver"])
			ch := recvChannels[recv]
			recv++
			claim(store.TransferIBCReceive, func(t *store.Transfer) bool {
				return to != nil && bytes.Equal(t.To, to) && t.Amount == a["amount"]
			}, ch, a["sender"])
		case "ibc_transfer":
			from := parse(a["sender"])
			ch := ""
			if send < len(sendChannels) {
				ch = sendChannels[send]
			}
			send++
			claim(store.TransferIBCSend, func(t *store.Transfer) bool {
				return from != nil && bytes.Equal(t.From, from) && t.Amount == a["amount"] && t.Denom == a["denom"]
			}, ch, a["receiver"])
		case "finalize_token_deposit":
			if a["success"] == "false" {
				continue
			}
			to := parse(a["recipient"])
			claim(store.TransferDeposit, func(t *store.Transfer) bool {
				return to != nil && bytes.Equal(t.To, to) && t.Amount == a["amount"] && t.Denom == a["denom"]
			}, "l1", a["sender"])
		case "initiate_token_withdrawal":
			from := parse(a["from"])
			claim(store.TransferWithdrawal, func(t *store.Transfer) bool {
				return from != nil && bytes.Equal(t.From, from) && t.Amount == a["amount"] && t.Denom == a["denom"]
			}, "l1", a["to"])
		}
	}
}

// mergeVM adds a VM's movements to the bank ones: a fungible movement with the sender,
// recipient and amount of a bank movement not yet matched is that movement reported again and
// only lends it its contract; the others are movements of their own.
func mergeVM(bank, vm []vmMovement) []vmMovement {
	matched := make([]bool, len(bank))
	n := len(bank)
	for _, m := range vm {
		found := false
		if m.echo && m.t.TokenID == "" {
			for i := 0; i < n; i++ {
				b := &bank[i].t
				if !matched[i] && bytes.Equal(b.From, m.t.From) && bytes.Equal(b.To, m.t.To) && b.Amount == m.t.Amount {
					matched[i], found = true, true
					if b.Contract == nil {
						b.Contract = m.t.Contract
					}
					break
				}
			}
		}
		if !found {
			bank = append(bank, m)
		}
	}
	return bank
}
