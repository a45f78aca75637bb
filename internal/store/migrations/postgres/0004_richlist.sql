-- Rich list, version 4 (PostgreSQL). Same tables as the SQLite twin; descriptions in COMMENT ON.

CREATE TABLE rich_list (
  denom   text  NOT NULL,
  account bytea NOT NULL,
  amount  bytea NOT NULL,
  PRIMARY KEY (denom, account)
);
CREATE INDEX rich_list_order ON rich_list (denom, amount DESC, account);
COMMENT ON TABLE rich_list IS 'one row per (denom, holder) ever seen; a balance that drops to 0 stays, as at the peer';
COMMENT ON COLUMN rich_list.denom IS 'EVM: lowercase 0x ERC-20 address; Move: lowercase symbol or move/<hex>; Wasm: lowercase bank denom';
COMMENT ON COLUMN rich_list.account IS 'raw holder address (20 or 32 bytes)';
COMMENT ON COLUMN rich_list.amount IS 'balance as a 32-byte big-endian unsigned integer (uint256), so byte order is numeric order';

CREATE TABLE rich_list_denom (
  denom   text   PRIMARY KEY,
  holders bigint NOT NULL
);
COMMENT ON TABLE rich_list_denom IS 'per-denom counter, so a page''s total is one row';
COMMENT ON COLUMN rich_list_denom.holders IS 'number of rich_list rows of the denom';

CREATE TABLE rich_list_alias (
  alias text PRIMARY KEY,
  denom text NOT NULL
);
COMMENT ON TABLE rich_list_alias IS 'names a request may use for a denom besides the stored one (EVM: bank denoms resolved through contracts/by_denom)';
COMMENT ON COLUMN rich_list_alias.alias IS 'lowercase name, e.g. "gas", "uusdc"';
COMMENT ON COLUMN rich_list_alias.denom IS 'as rich_list.denom';

CREATE TABLE rich_list_state (
  id     integer PRIMARY KEY CHECK (id = 1),
  height bigint  NOT NULL
);
INSERT INTO rich_list_state (id, height) VALUES (1, 0);
COMMENT ON TABLE rich_list_state IS 'one row: how far the rich list got';
COMMENT ON COLUMN rich_list_state.height IS 'last height applied (/status rich_list_height); 0 when the rich list is not tracked';
