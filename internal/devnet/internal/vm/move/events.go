package move

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Event type tags of the standard library that the simulation emits.
const (
	tagObjectCreate     = "0x1::object::CreateEvent"
	tagObjectTransfer   = "0x1::object::TransferEvent"
	tagObjectDelete     = "0x1::object::DeleteEvent"
	tagCollectionCreate = "0x1::collection::CreateEvent"
	tagCreateCollection = "0x1::collection::CreateCollectionEvent"
	tagCollectionMint   = "0x1::collection::MintEvent"
	tagCollectionBurn   = "0x1::collection::BurnEvent"
	tagNftCreate        = "0x1::nft::CreateEvent"
	tagNftMutation      = "0x1::nft::MutationEvent"
	tagWithdraw         = "0x1::fungible_asset::WithdrawEvent"
	tagWithdrawOwner    = "0x1::fungible_asset::WithdrawOwnerEvent"
	tagDeposit          = "0x1::fungible_asset::DepositEvent"
	tagDepositOwner     = "0x1::fungible_asset::DepositOwnerEvent"
	tagFAMint           = "0x1::fungible_asset::MintEvent"
	tagFABurn           = "0x1::fungible_asset::BurnEvent"
	tagPrimaryStore     = "0x1::primary_fungible_store::PrimaryStoreCreatedEvent"
	tagCoinCreated      = "0x1::coin::CoinCreatedEvent"
)

// kv is one field of a Move event: the value is a string (Move numbers are JSON strings) or a
// nested struct ([]kv).
type kv struct {
	k string
	v any
}

// moveEvent renders a Move event the way x/move does: `type_tag`, `data` (the event as JSON
// with the struct's field order), then every top-level field again as its own attribute in key
// order, nested structs printed as Go maps.
func moveEvent(typeTag string, fields ...kv) sim.Event {
	attrs := []sim.Attribute{
		{Key: "type_tag", Value: typeTag, Index: true},
		{Key: "data", Value: string(dataJSON(fields)), Index: true},
	}
	sorted := append([]kv(nil), fields...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].k < sorted[j].k })
	for _, f := range sorted {
		attrs = append(attrs, sim.Attribute{Key: f.k, Value: flatValue(f.v), Index: true})
	}
	return sim.Event{Type: EventType, Attributes: attrs}
}

func dataJSON(fields []kv) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshalNoEscape(f.k))
		b.WriteByte(':')
		switch v := f.v.(type) {
		case []kv:
			b.Write(dataJSON(v))
		default:
			// serde_json (the VM's encoder) does not escape <, > and &.
			b.Write(marshalNoEscape(v))
		}
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// flatValue prints a field the way Go's fmt prints the decoded JSON value: strings as is,
// objects as `map[k:v …]` with sorted keys.
func flatValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []kv:
		s := append([]kv(nil), x...)
		sort.SliceStable(s, func(i, j int) bool { return s[i].k < s[j].k })
		parts := make([]string, len(s))
		for i, f := range s {
			parts[i] = f.k + ":" + flatValue(f.v)
		}
		return "map[" + strings.Join(parts, " ") + "]"
	default:
		return fmt.Sprint(x)
	}
}

// executeEvent is the event x/move emits before the events of an entry function call.
func executeEvent(senders string, module, function string) sim.Event {
	return executeEventAt(senders, "0x1", module, function)
}

// executeEventAt is executeEvent for a module published at addr.
func executeEventAt(senders, addr, module, function string) sim.Event {
	return sim.Event{Type: "execute", Attributes: []sim.Attribute{
		{Key: "sender", Value: senders, Index: true},
		{Key: "module_addr", Value: addr, Index: true},
		{Key: "module_name", Value: module, Index: true},
		{Key: "function_name", Value: function, Index: true},
	}}
}

func plainEvent(typ string, kvs ...string) sim.Event {
	ev := sim.Event{Type: typ}
	for i := 0; i+1 < len(kvs); i += 2 {
		ev.Attributes = append(ev.Attributes, sim.Attribute{Key: kvs[i], Value: kvs[i+1], Index: true})
	}
	return ev
}

func objectCreateEvent(obj, owner Addr, version uint64) sim.Event {
	return moveEvent(tagObjectCreate, kv{"object", obj.String()}, kv{"owner", owner.String()}, kv{"version", strconv.FormatUint(version, 10)})
}

func storeCreatedEvents(owner, metadata Addr) []sim.Event {
	store := PrimaryStore(owner, metadata)
	return []sim.Event{
		objectCreateEvent(store, owner, 1),
		moveEvent(tagPrimaryStore, kv{"owner_addr", owner.String()}, kv{"store_addr", store.String()}, kv{"metadata_addr", metadata.String()}),
	}
}

func withdrawEvents(owner, metadata Addr, amount string) []sim.Event {
	return []sim.Event{
		moveEvent(tagWithdraw, kv{"store_addr", PrimaryStore(owner, metadata).String()}, kv{"metadata_addr", metadata.String()}, kv{"amount", amount}),
		moveEvent(tagWithdrawOwner, kv{"owner", owner.String()}),
	}
}

func depositEvents(owner, metadata Addr, amount string) []sim.Event {
	return []sim.Event{
		moveEvent(tagDeposit, kv{"store_addr", PrimaryStore(owner, metadata).String()}, kv{"metadata_addr", metadata.String()}, kv{"amount", amount}),
		moveEvent(tagDepositOwner, kv{"owner", owner.String()}),
	}
}
