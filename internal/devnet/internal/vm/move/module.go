package move

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// StoreName is the module's KV namespace (Env.Store / Query.Store).
const StoreName = "move"

// EventType is the type of the events the Move VM emits (the Move event's type tag in their
// "type_tag" attribute); it is spelled as the VM kind but is a chain event type.
const EventType = "move"

// Message type URLs handled by the module.
const (
	TypeMsgExecute     = "/initia.move.v1.MsgExecute"
	TypeMsgExecuteJSON = "/initia.move.v1.MsgExecuteJSON"
)

// Module is the simulated Move VM. Create it with New; it implements sim.Module.
type Module struct {
	log          *slog.Logger
	set          *storeSet
	flavor       *BankFlavor
	genesisCoins []string
	baseDenom    string
	packages     map[Addr]Package // published beside the standard library (WithPackage)
}

var _ sim.Module = (*Module)(nil)

// Option configures a Module.
type Option func(*Module)

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(m *Module) { m.log = l } }

// WithGenesisCoins names the bank denoms that exist at genesis (e.g. "umin", "uusdc"): their
// fungible-asset metadata objects (`0x1` named objects, "<denom> Coin") are written at genesis
// so resource and denom queries answer for them, and the traffic generator moves them. The
// fee denom is added by itself when the Env reports it (FeeDenom() string).
func WithGenesisCoins(denoms ...string) Option {
	return func(m *Module) { m.genesisCoins = append(m.genesisCoins, denoms...) }
}

// WithBaseDenom sets the Move params' base_denom served by /initia/move/v1/params (default
// "uinit", the minimove default the fixture shows).
func WithBaseDenom(d string) Option { return func(m *Module) { m.baseDenom = d } }

// New returns the Move module.
func New(opts ...Option) *Module {
	set := newStoreSet()
	m := &Module{
		log:       slog.New(slog.DiscardHandler),
		set:       set,
		flavor:    &BankFlavor{set: set},
		baseDenom: "uinit",
	}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Name implements sim.Module.
func (m *Module) Name() string { return StoreName }

// BankFlavor returns the chain's sim.BankFlavor; it shares the module's record of primary
// stores, so bank sends and Move transfers agree on when a store is first created.
func (m *Module) BankFlavor() *BankFlavor { return m.flavor }

// Needs implements sim.Needer. On a Move chain an entry function such as
// `0x1::coin::transfer` moves the same balances a MsgSend does but emits only the
// fungible-asset `move` events (no coin_spent/coin_received/transfer), which the handler emits
// itself, so it moves them through the quiet bank; genesis creates the fee denom's metadata.
func (m *Module) Needs() []sim.Extra { return []sim.Extra{sim.NeedQuietBank, sim.NeedFeeDenomer} }

// InitGenesis implements sim.Module: the coin metadata objects of the genesis denoms.
func (m *Module) InitGenesis(env sim.Env) error {
	kvs := env.Store(StoreName)
	coins := append([]string(nil), m.genesisCoins...)
	// The chain's fee denom always exists at genesis; an engine that names it needs no option.
	fd, err := sim.As[sim.FeeDenomer](env)
	if err != nil {
		return err
	}
	if d := fd.FeeDenom(); d != "" && !slices.Contains(coins, d) {
		coins = append(coins, d)
	}
	for _, d := range coins {
		meta := m.set.noteDenom(d)
		rec := metadataRec{Name: d + " Coin", Symbol: d, Creator: StdAddr.Hex(), Supply: "0"}
		if err := putJSON(kvs, keyMeta(meta), rec); err != nil {
			return err
		}
		if err := putJSON(kvs, keyObj(meta), objectRec{Owner: StdAddr.Hex(), Kind: kindMetadata}); err != nil {
			return err
		}
		kvs.Set(keyDenom(meta), []byte(d))
	}
	return nil
}

// Handlers implements sim.Module.
func (m *Module) Handlers() map[string]sim.Handler {
	return map[string]sim.Handler{
		TypeMsgExecute:     m.handleExecute,
		TypeMsgExecuteJSON: m.handleExecute,
	}
}

// ---- state ----

const (
	kindCollection = "collection"
	kindNft        = "nft"
	kindMetadata   = "metadata"
)

// objectRec is an object's ObjectCore (addresses as 64-digit hex).
type objectRec struct {
	Owner   string `json:"owner"`
	Kind    string `json:"kind"`
	Version uint64 `json:"version,omitempty"`
}

func (o objectRec) version() uint64 {
	if o.Version == 0 {
		return 1
	}
	return o.Version
}

type collectionRec struct {
	Creator     string  `json:"creator"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	URI         string  `json:"uri"`
	MaxSupply   *uint64 `json:"max_supply,omitempty"`
	Current     uint64  `json:"current"`
	Minted      uint64  `json:"minted"`
	Royalty     string  `json:"royalty"`
	Handle      string  `json:"handle"`
	MutDesc     bool    `json:"mut_desc"`
	MutRoyalty  bool    `json:"mut_royalty"`
	MutURI      bool    `json:"mut_uri"`
	MutNftDesc  bool    `json:"mut_nft_desc"`
	MutNftProps bool    `json:"mut_nft_props"`
	MutNftURI   bool    `json:"mut_nft_uri"`
}

type nftRec struct {
	Collection  string `json:"collection"`
	Description string `json:"description"`
	TokenID     string `json:"token_id"`
	URI         string `json:"uri"`
}

type metadataRec struct {
	Name       string `json:"name"`
	Symbol     string `json:"symbol"`
	Decimals   uint8  `json:"decimals"`
	IconURI    string `json:"icon_uri"`
	ProjectURI string `json:"project_uri"`
	MaxSupply  string `json:"max_supply,omitempty"`
	Supply     string `json:"supply"`
	Creator    string `json:"creator"`
}

func keyObj(a Addr) string   { return "obj/" + a.Hex() }
func keyCol(a Addr) string   { return "col/" + a.Hex() }
func keyNft(a Addr) string   { return "nft/" + a.Hex() }
func keyMeta(a Addr) string  { return "meta/" + a.Hex() }
func keyDenom(a Addr) string { return "denom/" + a.Hex() }
func keyStore(a Addr) string { return "store/" + a.Hex() }
func keyTomb(a Addr) string  { return "tomb/" + a.Hex() }

func putJSON(kvs sim.KV, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("movevm: encode %s: %w", key, err)
	}
	kvs.Set(key, b)
	return nil
}

func getJSON(kvs sim.KVReader, key string, v any) bool {
	b, ok := kvs.Get(key)
	if !ok {
		return false
	}
	return json.Unmarshal(b, v) == nil
}

func hexAddr(s string) Addr {
	a, _ := ParseAddr(s)
	return a
}

// denomOf resolves the bank denom of a fungible-asset metadata object.
func (m *Module) denomOf(kvs sim.KVReader, meta Addr) (string, bool) {
	if b, ok := kvs.Get(keyDenom(meta)); ok {
		return string(b), true
	}
	return m.set.denomOf(meta)
}

// ---- execution ----

// call is one entry-function invocation.
type call struct {
	m        *Module
	env      sim.Env
	kv       sim.KV
	sender   Addr
	typeArgs []string
	args     args
}

func (c *call) emit(evs ...sim.Event) {
	for _, e := range evs {
		c.env.Emit(e)
	}
}

type entryFn func(c *call) error

var entries = map[string]struct {
	fn  entryFn
	gas uint64
}{
	"simple_nft::create_collection":    {(*call).createCollection, 92000},
	"simple_nft::mint":                 {(*call).mintNft, 80000},
	"simple_nft::set_uri":              {(*call).setURI, 10000},
	"simple_nft::burn":                 {(*call).burnNft, 27000},
	"object::transfer_call":            {(*call).transferObject, 5000},
	"object::transfer":                 {(*call).transferObject, 4500},
	"managed_coin::initialize":         {(*call).initCoin, 81000},
	"managed_coin::mint_to":            {(*call).mintTo, 53000},
	"managed_coin::mint":               {(*call).mintSelf, 53000},
	"managed_coin::burn":               {(*call).burnCoin, 45000},
	"coin::transfer":                   {(*call).coinTransfer, 57000},
	"primary_fungible_store::transfer": {(*call).storeTransfer, 57000},
}

// abort is a Move abort as x/move reports it: code 1 in codespace "undefined".
func abort(module string, code uint64) error {
	return &sim.CodedError{Codespace: "undefined", Code: 1,
		Log: fmt.Sprintf("VM aborted: location=%s, code=%d", abortLocation(module), code)}
}

func vmError(status, msg string) error {
	return &sim.CodedError{Codespace: "undefined", Code: 1,
		Log: fmt.Sprintf("VM error: status %s of type Verification with message %s", status, msg)}
}

// Abort codes (error category << 16 | reason) as the standard library raises them; the
// fixture shows the first three, the others follow the library's constants.
const (
	codeInsufficientBalance = 0x10004 // fungible_asset EINSUFFICIENT_BALANCE (fixture h13/h58)
	codeNotObjectOwner      = 0x50004 // object ENOT_OBJECT_OWNER (fixture h34)
	codeFieldNotMutable     = 0x50004 // initia_nft EFIELD_NOT_MUTABLE (fixture h36)
	codeObjectExists        = 0x80001 // object EOBJECT_EXISTS
	codeObjectMissing       = 0x60002 // object EOBJECT_DOES_NOT_EXIST
	codeNftMissing          = 0x60001 // nft ENFT_DOES_NOT_EXIST
	codeSimpleNftMissing    = 0x60002 // simple_nft ENFT_DOES_NOT_EXIST
	codeNotCreator          = 0x50003 // initia_nft ENOT_CREATOR
	codeNotOwner            = 0x50004 // simple_nft ENOT_OWNER
	codeSupplyExceeded      = 0x20002 // collection ECOLLECTION_SUPPLY_EXCEEDED
	codeMaxSupplyZero       = 0x10006 // collection EMAX_SUPPLY_CANNOT_BE_ZERO
	codeCollectionNameLong  = 0x20003 // collection ECOLLECTION_NAME_TOO_LONG
	codeCollectionNameBad   = 0x10007 // collection EINVALID_COLLECTION_NAME ("::")
	codeCollectionURILong   = 0x20004 // collection EURI_TOO_LONG
	codeCollectionDescLong  = 0x20005 // collection EDESCRIPTION_TOO_LONG
	codeTokenIDLong         = 0x20004 // nft ENFT_TOKEN_ID_TOO_LONG
	codeTokenIDBad          = 0x10009 // nft EINVALID_TOKEN_ID ("::")
	codeNftURILong          = 0x20006 // nft EURI_TOO_LONG
	codeNftDescLong         = 0x20007 // nft EDESCRIPTION_TOO_LONG
	codeUnauthorized        = 0x60002 // managed_coin EUNAUTHORIZED (not_found)
	codeMaxSupplyExceeded   = 0x20005 // fungible_asset EMAX_SUPPLY_EXCEEDED
	codeRoyaltyTooHigh      = 0x10001 // royalty EROYALTY_EXCEEDS_MAXIMUM
	codeBadProperties       = 0x10001 // property_map: key/type/value counts differ
)

// Length limits of the token modules (characters; the simulation counts bytes).
const (
	maxNameLen = 128
	maxURILen  = 512
	maxDescLen = 2048
)

func (m *Module) handleExecute(env sim.Env, msg proto.Message) error {
	var (
		sender, modAddr, modName, fn string
		typeArgs                     []string
		a                            args
	)
	switch x := msg.(type) {
	case *movev1.MsgExecute:
		sender, modAddr, modName, fn, typeArgs, a = x.Sender, x.ModuleAddress, x.ModuleName, x.FunctionName, x.TypeArgs, bcsArgs(x.Args)
	case *movev1.MsgExecuteJSON:
		sender, modAddr, modName, fn, typeArgs, a = x.Sender, x.ModuleAddress, x.ModuleName, x.FunctionName, x.TypeArgs, jsonArgs(x.Args)
	default:
		return fmt.Errorf("movevm: unexpected message %T", msg)
	}
	sb, err := address.Parse(env.AddressPrefix(), sender)
	if err != nil {
		return &sim.CodedError{Codespace: "sdk", Code: 7, Log: fmt.Sprintf("invalid sender address: %v", err)}
	}
	ma, err := ParseAddr(modAddr)
	if err != nil {
		return &sim.CodedError{Codespace: "sdk", Code: 7, Log: "invalid module address"}
	}
	if p, ok := m.packages[ma]; ok {
		f, gas, ok := p.Entry(modName, fn)
		if !ok {
			return vmError("FUNCTION_RESOLUTION_FAILURE",
				fmt.Sprintf("Function %s::%s::%s does not exist", ma.String(), modName, fn))
		}
		c := &call{m: m, env: env, kv: env.Store(StoreName), sender: AccAddr(sb), typeArgs: typeArgs, args: a}
		env.ConsumeGas(gas)
		c.emit(executeEventAt(c.sender.String(), ma.String(), modName, fn))
		if err := f(&Call{c: c, Args: &Args{a: a}}); err != nil {
			m.log.Debug("move call failed", "chain", env.ChainID(), "height", env.Height(), "function", modName+"::"+fn, "err", err)
			return err
		}
		return nil
	}
	e, ok := entries[modName+"::"+fn]
	if !ok || ma != StdAddr {
		return vmError("FUNCTION_RESOLUTION_FAILURE",
			fmt.Sprintf("Function %s::%s::%s does not exist", ma.String(), modName, fn))
	}
	c := &call{m: m, env: env, kv: env.Store(StoreName), sender: AccAddr(sb), typeArgs: typeArgs, args: a}
	env.ConsumeGas(e.gas)
	c.emit(executeEvent(c.sender.String(), modName, fn))
	if err := e.fn(c); err != nil {
		m.log.Debug("move call failed", "chain", env.ChainID(), "height", env.Height(), "function", modName+"::"+fn, "err", err)
		return err
	}
	return nil
}

// badArgs is what the VM reports for arguments it cannot deserialize.
// argsErr names the arguments of a call and their decoding errors; a nil one prints as <nil>,
// as it always has in the VM log.
func argsErr(names string, errs ...error) error {
	var b strings.Builder
	b.WriteString(names + ":")
	for _, err := range errs {
		fmt.Fprintf(&b, " %v", err)
	}
	return errors.New(b.String())
}

func badArgs(err error) error {
	return &sim.CodedError{Codespace: "undefined", Code: 1,
		Log: fmt.Sprintf("VM error: status FAILED_TO_DESERIALIZE_ARGUMENT of type Verification with message %v", err)}
}

func (c *call) createCollection() error {
	desc, err1 := c.args.str(0)
	maxSupply, err2 := c.args.optU64(1)
	name, err3 := c.args.str(2)
	uri, err4 := c.args.str(3)
	var flags [6]bool
	var errs []error
	for i := range flags {
		v, err := c.args.boolean(4 + i)
		flags[i] = v
		errs = append(errs, err)
	}
	royalty, err5 := c.args.decimal(10)
	for _, err := range append(errs, err1, err2, err3, err4, err5) {
		if err != nil {
			return badArgs(err)
		}
	}
	if r, _ := parseDecimal(royalty); r.Cmp(decimalScale) > 0 {
		return abort("royalty", codeRoyaltyTooHigh)
	}
	switch {
	case maxSupply != nil && *maxSupply == 0:
		return abort("collection", codeMaxSupplyZero)
	case len(name) > maxNameLen:
		return abort("collection", codeCollectionNameLong)
	}
	col := CollectionAddr(c.sender, name)
	version, err := c.newObject(col)
	if err != nil {
		return err
	}
	switch {
	case strings.Contains(name, "::"):
		return abort("collection", codeCollectionNameBad)
	case len(uri) > maxURILen:
		return abort("collection", codeCollectionURILong)
	case len(desc) > maxDescLen:
		return abort("collection", codeCollectionDescLong)
	}
	rec := collectionRec{
		Creator: c.sender.Hex(), Name: name, Description: desc, URI: uri, MaxSupply: maxSupply,
		Royalty: royalty, Handle: NamedObject(AccAddr(c.env.TxHash()), col[:]).Hex(),
		MutDesc: flags[0], MutRoyalty: flags[1], MutURI: flags[2], MutNftDesc: flags[3], MutNftProps: flags[4], MutNftURI: flags[5],
	}
	if err := putJSON(c.kv, keyCol(col), rec); err != nil {
		return err
	}
	if err := putJSON(c.kv, keyObj(col), objectRec{Owner: c.sender.Hex(), Kind: kindCollection, Version: version}); err != nil {
		return err
	}
	supply := []kv{{"current_supply", "0"}}
	if maxSupply != nil {
		supply = append(supply, kv{"max_supply", fmt.Sprint(*maxSupply)})
	}
	supply = append(supply, kv{"total_minted", "0"})
	c.emit(
		objectCreateEvent(col, c.sender, version),
		moveEvent(tagCollectionCreate,
			kv{"collection", col.String()}, kv{"creator", c.sender.String()}, kv{"name", name},
			kv{"description", desc}, kv{"uri", uri},
			kv{"royalty", []kv{{"royalty", royalty}, {"payee_address", c.sender.String()}}},
			kv{"supply", supply}),
		moveEvent(tagCreateCollection, kv{"collection", col.String()}, kv{"creator", c.sender.String()}, kv{"name", name}),
	)
	return nil
}

func (c *call) mintNft() error {
	colName, err1 := c.args.str(0)
	desc, err2 := c.args.str(1)
	tokenID, err3 := c.args.str(2)
	uri, err4 := c.args.str(3)
	keys, err5 := c.args.strVec(4)
	types, err6 := c.args.strVec(5)
	values, err7 := c.args.bytesVec(6)
	to, err8 := c.args.optAddr(7)
	if err := ArgsErr(err1, err2, err3, err4, err5, err6, err7, err8); err != nil {
		return err
	}
	// The library's order: the NFT object first, then the token checks, then the collection.
	if len(tokenID) > maxNameLen {
		return abort("nft", codeTokenIDLong)
	}
	nft := NftAddr(c.sender, colName, tokenID)
	version, err := c.newObject(nft)
	if err != nil {
		return err
	}
	switch {
	case strings.Contains(tokenID, "::"):
		return abort("nft", codeTokenIDBad)
	case len(desc) > maxDescLen:
		return abort("nft", codeNftDescLong)
	case len(uri) > maxURILen:
		return abort("nft", codeNftURILong)
	}
	col := CollectionAddr(c.sender, colName)
	var rec collectionRec
	if !getJSON(c.kv, keyCol(col), &rec) {
		return &sim.CodedError{Codespace: "undefined", Code: 1, Log: fmt.Sprintf(
			"VM error: status MISSING_DATA of type Execution with message Failed to borrow global resource from %s", col.Hex())}
	}
	if rec.MaxSupply != nil && rec.Current >= *rec.MaxSupply {
		return abort("collection", codeSupplyExceeded)
	}
	if len(keys) != len(types) || len(keys) != len(values) {
		return abort("property_map", codeBadProperties)
	}
	rec.Current++
	rec.Minted++
	owner := c.sender
	if to != nil {
		owner = *to
	}
	if err := putJSON(c.kv, keyCol(col), rec); err != nil {
		return err
	}
	if err := putJSON(c.kv, keyNft(nft), nftRec{Collection: col.Hex(), Description: desc, TokenID: tokenID, URI: uri}); err != nil {
		return err
	}
	if err := putJSON(c.kv, keyObj(nft), objectRec{Owner: owner.Hex(), Kind: kindNft, Version: version}); err != nil {
		return err
	}
	c.emit(
		objectCreateEvent(nft, c.sender, version),
		moveEvent(tagCollectionMint, kv{"collection", col.String()}, kv{"token_id", tokenID}, kv{"nft", nft.String()}),
		moveEvent(tagNftCreate, kv{"collection", col.String()}, kv{"token_id", tokenID}, kv{"description", desc}, kv{"uri", uri}),
	)
	// object::transfer records (and reports) only a change of owner.
	if to != nil && *to != c.sender {
		c.emit(transferEvent(nft, c.sender, *to))
	}
	return nil
}

// newObject checks that no object lives at a (object::create_object_internal) and returns the
// version the new one gets: 1, or the tombstone's version + 1 after a deletion.
func (c *call) newObject(a Addr) (uint64, error) {
	if _, exists := c.kv.Get(keyObj(a)); exists {
		return 0, abort("object", codeObjectExists)
	}
	if b, ok := c.kv.Get(keyTomb(a)); ok && len(b) == 8 {
		return binary.BigEndian.Uint64(b) + 1, nil
	}
	return 1, nil
}

func transferEvent(obj, from, to Addr) sim.Event {
	return moveEvent(tagObjectTransfer, kv{"object", obj.String()}, kv{"from", from.String()}, kv{"to", to.String()})
}

func (c *call) transferObject() error {
	obj, err1 := c.args.addr(0)
	to, err2 := c.args.addr(1)
	if err1 != nil || err2 != nil {
		return badArgs(argsErr("object, to", err1, err2))
	}
	var rec objectRec
	if !getJSON(c.kv, keyObj(obj), &rec) {
		return abort("object", codeObjectMissing)
	}
	if hexAddr(rec.Owner) != c.sender {
		return abort("object", codeNotObjectOwner)
	}
	if to == c.sender {
		return nil // object::transfer to the current owner changes nothing and emits nothing
	}
	rec.Owner = to.Hex()
	if err := putJSON(c.kv, keyObj(obj), rec); err != nil {
		return err
	}
	c.emit(transferEvent(obj, c.sender, to))
	return nil
}

// nftAndCollection loads an NFT and its collection, aborting as the library would.
func (c *call) nftAndCollection(nft Addr) (objectRec, nftRec, collectionRec, error) {
	var o objectRec
	var n nftRec
	var col collectionRec
	if !getJSON(c.kv, keyObj(nft), &o) || !getJSON(c.kv, keyNft(nft), &n) {
		return o, n, col, abort("nft", codeNftMissing)
	}
	if !getJSON(c.kv, keyCol(hexAddr(n.Collection)), &col) {
		return o, n, col, abort("nft", codeNftMissing)
	}
	return o, n, col, nil
}

func (c *call) setURI() error {
	nft, err1 := c.args.addr(0)
	uri, err2 := c.args.str(1)
	if err1 != nil || err2 != nil {
		return badArgs(argsErr("nft, uri", err1, err2))
	}
	_, n, col, err := c.nftAndCollection(nft)
	if err != nil {
		return err
	}
	if !col.MutNftURI {
		return abort("initia_nft", codeFieldNotMutable)
	}
	if hexAddr(col.Creator) != c.sender {
		return abort("initia_nft", codeNotCreator)
	}
	old := n.URI
	n.URI = uri
	if err := putJSON(c.kv, keyNft(nft), n); err != nil {
		return err
	}
	c.emit(moveEvent(tagNftMutation, kv{"nft", nft.String()}, kv{"mutated_field_name", "uri"}, kv{"old_value", old}, kv{"new_value", uri}))
	return nil
}

func (c *call) burnNft() error {
	nft, err := c.args.addr(0)
	if err != nil {
		return badArgs(err)
	}
	o, n, col, err := c.nftAndCollection(nft)
	if err != nil {
		return abort("simple_nft", codeSimpleNftMissing)
	}
	if hexAddr(o.Owner) != c.sender {
		return abort("simple_nft", codeNotOwner)
	}
	colAddr := hexAddr(n.Collection)
	if col.Current > 0 {
		col.Current--
	}
	if err := putJSON(c.kv, keyCol(colAddr), col); err != nil {
		return err
	}
	c.kv.Delete(keyNft(nft))
	c.kv.Delete(keyObj(nft))
	// object::delete leaves a tombstone: a later object at this address gets the next version.
	c.kv.Set(keyTomb(nft), binary.BigEndian.AppendUint64(nil, o.version()))
	c.emit(
		moveEvent(tagObjectDelete, kv{"object", nft.String()}, kv{"owner", c.sender.String()}),
		moveEvent(tagCollectionBurn, kv{"collection", colAddr.String()}, kv{"token_id", n.TokenID}, kv{"nft", nft.String()}),
	)
	return nil
}

func (c *call) initCoin() error {
	maxSupply, err1 := c.args.optU128(0)
	name, err2 := c.args.str(1)
	symbol, err3 := c.args.str(2)
	decimals, err4 := c.args.u8(3)
	icon, err5 := c.args.str(4)
	project, err6 := c.args.str(5)
	if err := ArgsErr(err1, err2, err3, err4, err5, err6); err != nil {
		return err
	}
	meta := ManagedCoinMetadata(c.sender, symbol)
	version, err := c.newObject(meta)
	if err != nil {
		return err
	}
	rec := metadataRec{Name: name, Symbol: symbol, Decimals: decimals, IconURI: icon, ProjectURI: project, Supply: "0", Creator: c.sender.Hex()}
	if maxSupply != nil {
		rec.MaxSupply = maxSupply.String()
	}
	if err := putJSON(c.kv, keyMeta(meta), rec); err != nil {
		return err
	}
	if err := putJSON(c.kv, keyObj(meta), objectRec{Owner: c.sender.Hex(), Kind: kindMetadata, Version: version}); err != nil {
		return err
	}
	c.kv.Set(keyDenom(meta), []byte(MoveDenom(meta)))
	c.emit(objectCreateEvent(meta, c.sender, version), moveEvent(tagCoinCreated, kv{"metadata_addr", meta.String()}))
	return nil
}

func (c *call) mintTo() error {
	to, err1 := c.args.addr(0)
	meta, err2 := c.args.addr(1)
	amt, err3 := c.args.u64(2)
	if err1 != nil || err2 != nil || err3 != nil {
		return badArgs(argsErr("recipient, metadata, amount", err1, err2, err3))
	}
	return c.mint(to, meta, amt)
}

func (c *call) mintSelf() error {
	meta, err1 := c.args.addr(0)
	amt, err2 := c.args.u64(1)
	if err1 != nil || err2 != nil {
		return badArgs(argsErr("metadata, amount", err1, err2))
	}
	return c.mint(c.sender, meta, amt)
}

func (c *call) mint(to, meta Addr, amt uint64) error {
	var rec metadataRec
	var obj objectRec
	if !getJSON(c.kv, keyMeta(meta), &rec) || !getJSON(c.kv, keyObj(meta), &obj) {
		return abort("object", codeObjectMissing)
	}
	if hexAddr(obj.Owner) != c.sender {
		return abort("managed_coin", codeUnauthorized)
	}
	supply, _ := new(big.Int).SetString(rec.Supply, 10)
	if supply == nil {
		supply = new(big.Int)
	}
	supply.Add(supply, new(big.Int).SetUint64(amt))
	if rec.MaxSupply != "" {
		if max, ok := new(big.Int).SetString(rec.MaxSupply, 10); ok && supply.Cmp(max) > 0 {
			return abort("fungible_asset", codeMaxSupplyExceeded)
		}
	}
	rec.Supply = supply.String()
	if err := putJSON(c.kv, keyMeta(meta), rec); err != nil {
		return err
	}
	denom := MoveDenom(meta)
	amount := new(big.Int).SetUint64(amt)
	c.emit(moveEvent(tagFAMint, kv{"metadata_addr", meta.String()}, kv{"amount", amount.String()}))
	c.ensureStore(to, meta, denom)
	c.emit(depositEvents(to, meta, amount.String())...)
	coins := []sim.Coin{{Denom: denom, Amount: amount}}
	q, err := sim.As[sim.QuietBank](c.env)
	if err != nil {
		return err
	}
	return q.MintQuiet(to.Account(), coins)
}

// burnCoin is managed_coin::burn: the metadata owner withdraws and burns its own coins
// (withdraw pair, then the fungible-asset BurnEvent).
func (c *call) burnCoin() error {
	meta, err1 := c.args.addr(0)
	amt, err2 := c.args.u64(1)
	if err1 != nil || err2 != nil {
		return badArgs(argsErr("metadata, amount", err1, err2))
	}
	var rec metadataRec
	var obj objectRec
	if !getJSON(c.kv, keyMeta(meta), &rec) || !getJSON(c.kv, keyObj(meta), &obj) {
		return abort("object", codeObjectMissing)
	}
	if hexAddr(obj.Owner) != c.sender {
		return abort("managed_coin", codeUnauthorized)
	}
	denom := MoveDenom(meta)
	amount := new(big.Int).SetUint64(amt)
	if c.env.Balance(c.sender.Account(), denom).Cmp(amount) < 0 {
		return abort("fungible_asset", codeInsufficientBalance)
	}
	if supply, ok := new(big.Int).SetString(rec.Supply, 10); ok {
		rec.Supply = supply.Sub(supply, amount).String()
	}
	if err := putJSON(c.kv, keyMeta(meta), rec); err != nil {
		return err
	}
	c.emit(withdrawEvents(c.sender, meta, amount.String())...)
	c.emit(moveEvent(tagFABurn, kv{"metadata_addr", meta.String()}, kv{"amount", amount.String()}))
	coins := []sim.Coin{{Denom: denom, Amount: amount}}
	q, err := sim.As[sim.QuietBank](c.env)
	if err != nil {
		return err
	}
	return q.BurnQuiet(c.sender.Account(), coins)
}

// ensureStore emits the primary-store creation the first time owner receives the asset.
func (c *call) ensureStore(owner, meta Addr, denom string) {
	store := PrimaryStore(owner, meta)
	if _, ok := c.kv.Get(keyStore(store)); ok {
		return
	}
	c.kv.Set(keyStore(store), []byte{1})
	known := c.m.set.has(store) || c.env.Balance(owner.Account(), denom).Sign() > 0
	if !known && c.m.flavor.StoreExists != nil {
		known = c.m.flavor.StoreExists(owner.Account(), denom)
	}
	if !sim.Simulating(c.env) { // a simulated tx's store is gone with its writes
		c.m.set.add(store)
	}
	if !known {
		c.emit(storeCreatedEvents(owner, meta)...)
	}
}

func (c *call) coinTransfer() error {
	to, err1 := c.args.addr(0)
	meta, err2 := c.args.addr(1)
	amt, err3 := c.args.u64(2)
	if err1 != nil || err2 != nil || err3 != nil {
		return badArgs(argsErr("recipient, metadata, amount", err1, err2, err3))
	}
	return c.faTransfer(to, meta, amt)
}

func (c *call) storeTransfer() error {
	meta, err1 := c.args.addr(0)
	to, err2 := c.args.addr(1)
	amt, err3 := c.args.u64(2)
	if err1 != nil || err2 != nil || err3 != nil {
		return badArgs(argsErr("metadata, recipient, amount", err1, err2, err3))
	}
	return c.faTransfer(to, meta, amt)
}

func (c *call) faTransfer(to, meta Addr, amt uint64) error {
	denom, ok := c.m.denomOf(c.kv, meta)
	if !ok {
		return abort("object", codeObjectMissing)
	}
	amount := new(big.Int).SetUint64(amt)
	if c.env.Balance(c.sender.Account(), denom).Cmp(amount) < 0 {
		return abort("fungible_asset", codeInsufficientBalance)
	}
	c.ensureStore(to, meta, denom)
	c.emit(withdrawEvents(c.sender, meta, amount.String())...)
	c.emit(depositEvents(to, meta, amount.String())...)
	coins := []sim.Coin{{Denom: denom, Amount: amount}}
	q, err := sim.As[sim.QuietBank](c.env)
	if err != nil {
		return err
	}
	return q.SendQuiet(c.sender.Account(), to.Account(), coins)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
