package movevm

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet/sim"
)

// StoreName is the module's KV namespace (Env.Store / Query.Store).
const StoreName = "move"

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
}

var _ sim.Module = (*Module)(nil)

// Option configures a Module.
type Option func(*Module)

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(m *Module) { m.log = l } }

// WithGenesisCoins names the bank denoms that exist at genesis (e.g. "umin", "uusdc"): their
// fungible-asset metadata objects (`0x1` named objects, "<denom> Coin") are written at genesis
// so resource and denom queries answer for them, and the traffic generator moves them.
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

// InitGenesis implements sim.Module: the coin metadata objects of the genesis denoms.
func (m *Module) InitGenesis(env sim.Env) error {
	kvs := env.Store(StoreName)
	for _, d := range m.genesisCoins {
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
	Owner string `json:"owner"`
	Kind  string `json:"kind"`
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

// Abort codes (error category << 16 | reason) the simulation reports, named after the
// standard library constants; the ones the fixture shows are exact.
const (
	codeInsufficientBalance = 65540  // fungible_asset: invalid_argument(4), fixture h13/h58
	codeNotObjectOwner      = 327684 // object: permission_denied(4), fixture h34
	codeFieldNotMutable     = 327684 // initia_nft: permission_denied(4), fixture h36
	codeObjectExists        = 524289 // object: already_exists(1)
	codeObjectMissing       = 393218 // object: not_found(2)
	codeCollectionMissing   = 393217 // simple_nft: not_found(1)
	codeNotCreator          = 327682 // initia_nft: permission_denied(2)
	codeNotOwner            = 327684 // simple_nft: permission_denied(4)
	codeSupplyExceeded      = 131074 // collection: out_of_range(2)
	codeUnauthorized        = 327681 // managed_coin: permission_denied(1)
	codeMaxSupplyExceeded   = 131077 // fungible_asset: out_of_range(5)
	codeRoyaltyTooHigh      = 65537  // royalty: invalid_argument(1)
	codeBadProperties       = 65537  // property_map: invalid_argument(1)
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
	col := CollectionAddr(c.sender, name)
	if _, exists := c.kv.Get(keyObj(col)); exists {
		return abort("object", codeObjectExists)
	}
	rec := collectionRec{
		Creator: c.sender.Hex(), Name: name, Description: desc, URI: uri, MaxSupply: maxSupply,
		Royalty: royalty, Handle: NamedObject(AccAddr(c.env.TxHash()), col[:]).Hex(),
		MutDesc: flags[0], MutRoyalty: flags[1], MutURI: flags[2], MutNftDesc: flags[3], MutNftProps: flags[4], MutNftURI: flags[5],
	}
	if err := putJSON(c.kv, keyCol(col), rec); err != nil {
		return err
	}
	if err := putJSON(c.kv, keyObj(col), objectRec{Owner: c.sender.Hex(), Kind: kindCollection}); err != nil {
		return err
	}
	supply := []kv{{"current_supply", "0"}}
	if maxSupply != nil {
		supply = append(supply, kv{"max_supply", fmt.Sprint(*maxSupply)})
	}
	supply = append(supply, kv{"total_minted", "0"})
	c.emit(
		objectCreateEvent(col, c.sender),
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
	for _, err := range []error{err1, err2, err3, err4, err5, err6, err7, err8} {
		if err != nil {
			return badArgs(err)
		}
	}
	if len(keys) != len(types) || len(keys) != len(values) {
		return abort("property_map", codeBadProperties)
	}
	col := CollectionAddr(c.sender, colName)
	var rec collectionRec
	if !getJSON(c.kv, keyCol(col), &rec) {
		return abort("simple_nft", codeCollectionMissing)
	}
	if rec.MaxSupply != nil && rec.Current >= *rec.MaxSupply {
		return abort("collection", codeSupplyExceeded)
	}
	nft := NftAddr(c.sender, colName, tokenID)
	if _, exists := c.kv.Get(keyObj(nft)); exists {
		return abort("object", codeObjectExists)
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
	if err := putJSON(c.kv, keyObj(nft), objectRec{Owner: owner.Hex(), Kind: kindNft}); err != nil {
		return err
	}
	c.emit(
		objectCreateEvent(nft, c.sender),
		moveEvent(tagCollectionMint, kv{"collection", col.String()}, kv{"token_id", tokenID}, kv{"nft", nft.String()}),
		moveEvent(tagNftCreate, kv{"collection", col.String()}, kv{"token_id", tokenID}, kv{"description", desc}, kv{"uri", uri}),
	)
	if to != nil {
		c.emit(transferEvent(nft, c.sender, *to))
	}
	return nil
}

func transferEvent(obj, from, to Addr) sim.Event {
	return moveEvent(tagObjectTransfer, kv{"object", obj.String()}, kv{"from", from.String()}, kv{"to", to.String()})
}

func (c *call) transferObject() error {
	obj, err1 := c.args.addr(0)
	to, err2 := c.args.addr(1)
	if err1 != nil || err2 != nil {
		return badArgs(fmt.Errorf("object, to: %v %v", err1, err2))
	}
	var rec objectRec
	if !getJSON(c.kv, keyObj(obj), &rec) {
		return abort("object", codeObjectMissing)
	}
	if hexAddr(rec.Owner) != c.sender {
		return abort("object", codeNotObjectOwner)
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
		return o, n, col, abort("object", codeObjectMissing)
	}
	if !getJSON(c.kv, keyCol(hexAddr(n.Collection)), &col) {
		return o, n, col, abort("simple_nft", codeCollectionMissing)
	}
	return o, n, col, nil
}

func (c *call) setURI() error {
	nft, err1 := c.args.addr(0)
	uri, err2 := c.args.str(1)
	if err1 != nil || err2 != nil {
		return badArgs(fmt.Errorf("nft, uri: %v %v", err1, err2))
	}
	_, n, col, err := c.nftAndCollection(nft)
	if err != nil {
		return err
	}
	if hexAddr(col.Creator) != c.sender {
		return abort("initia_nft", codeNotCreator)
	}
	if !col.MutNftURI {
		return abort("initia_nft", codeFieldNotMutable)
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
		return err
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
	for _, err := range []error{err1, err2, err3, err4, err5, err6} {
		if err != nil {
			return badArgs(err)
		}
	}
	meta := ManagedCoinMetadata(c.sender, symbol)
	if _, exists := c.kv.Get(keyObj(meta)); exists {
		return abort("object", codeObjectExists)
	}
	rec := metadataRec{Name: name, Symbol: symbol, Decimals: decimals, IconURI: icon, ProjectURI: project, Supply: "0", Creator: c.sender.Hex()}
	if maxSupply != nil {
		rec.MaxSupply = maxSupply.String()
	}
	if err := putJSON(c.kv, keyMeta(meta), rec); err != nil {
		return err
	}
	if err := putJSON(c.kv, keyObj(meta), objectRec{Owner: c.sender.Hex(), Kind: kindMetadata}); err != nil {
		return err
	}
	c.kv.Set(keyDenom(meta), []byte(MoveDenom(meta)))
	c.emit(objectCreateEvent(meta, c.sender), moveEvent(tagCoinCreated, kv{"metadata_addr", meta.String()}))
	return nil
}

func (c *call) mintTo() error {
	to, err1 := c.args.addr(0)
	meta, err2 := c.args.addr(1)
	amt, err3 := c.args.u64(2)
	if err1 != nil || err2 != nil || err3 != nil {
		return badArgs(fmt.Errorf("recipient, metadata, amount: %v %v %v", err1, err2, err3))
	}
	return c.mint(to, meta, amt)
}

func (c *call) mintSelf() error {
	meta, err1 := c.args.addr(0)
	amt, err2 := c.args.u64(1)
	if err1 != nil || err2 != nil {
		return badArgs(fmt.Errorf("metadata, amount: %v %v", err1, err2))
	}
	return c.mint(c.sender, meta, amt)
}

func (c *call) mint(to, meta Addr, amt uint64) error {
	var rec metadataRec
	if !getJSON(c.kv, keyMeta(meta), &rec) {
		return abort("object", codeObjectMissing)
	}
	if hexAddr(rec.Creator) != c.sender {
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
	if q, ok := c.env.(QuietBank); ok {
		return q.MintQuiet(to.Account(), coins)
	}
	return c.env.Mint(to.Account(), coins)
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
	c.m.set.add(store)
	if !known {
		c.emit(storeCreatedEvents(owner, meta)...)
	}
}

func (c *call) coinTransfer() error {
	to, err1 := c.args.addr(0)
	meta, err2 := c.args.addr(1)
	amt, err3 := c.args.u64(2)
	if err1 != nil || err2 != nil || err3 != nil {
		return badArgs(fmt.Errorf("recipient, metadata, amount: %v %v %v", err1, err2, err3))
	}
	return c.faTransfer(to, meta, amt)
}

func (c *call) storeTransfer() error {
	meta, err1 := c.args.addr(0)
	to, err2 := c.args.addr(1)
	amt, err3 := c.args.u64(2)
	if err1 != nil || err2 != nil || err3 != nil {
		return badArgs(fmt.Errorf("metadata, recipient, amount: %v %v %v", err1, err2, err3))
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
	if q, ok := c.env.(QuietBank); ok {
		return q.SendQuiet(c.sender.Account(), to.Account(), coins)
	}
	return c.env.Send(c.sender.Account(), to.Account(), coins)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
