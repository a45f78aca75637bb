-- Rich list, version 4 (SQLite): every holder's balance of every tracked denom, changed in the
-- same transaction as the block that moved it, so the list is exact at the indexed height.

CREATE TABLE rich_list ( -- one row per (denom, holder) ever seen; a balance that drops to 0 stays, as at the peer
  denom   TEXT NOT NULL, -- EVM: lowercase 0x ERC-20 address; Move: lowercase symbol or move/<hex>; Wasm: lowercase bank denom
  account BLOB NOT NULL, -- raw holder address (20 or 32 bytes)
  amount  BLOB NOT NULL, -- balance as a 32-byte big-endian unsigned integer (uint256), so byte order is numeric order
  PRIMARY KEY (denom, account)
) WITHOUT ROWID;
CREATE INDEX rich_list_order ON rich_list (denom, amount DESC, account); -- holders by amount, account as tie-break

CREATE TABLE rich_list_denom ( -- per-denom counter, so a page's total is one row
  denom   TEXT    PRIMARY KEY, -- as rich_list.denom
  holders INTEGER NOT NULL     -- number of rich_list rows of the denom
) WITHOUT ROWID;

CREATE TABLE rich_list_alias ( -- names a request may use for a denom besides the stored one (EVM: bank denoms resolved through contracts/by_denom)
  alias TEXT PRIMARY KEY, -- lowercase name, e.g. "gas", "uusdc"
  denom TEXT NOT NULL     -- as rich_list.denom
) WITHOUT ROWID;

CREATE TABLE rich_list_state ( -- one row: how far the rich list got
  id     INTEGER PRIMARY KEY CHECK (id = 1), -- always 1
  height INTEGER NOT NULL                    -- last height applied (/status rich_list_height); 0 when the rich list is not tracked
);
INSERT INTO rich_list_state (id, height) VALUES (1, 0);
