-- rollgate indexer schema, version 6 (SQLite): rank buckets of the rich list, so an offset page
-- 900,000 holders deep is a seek plus a short skip, as the NFT token lists' (0005). A bucket key
-- must be one ascending row value on an index, but holders are ordered by amount descending and
-- account ascending; amount_desc, the amount's 32 bytes complemented, ascends as the amount
-- descends, so (denom, amount_desc, account) is that order with every column ascending.

ALTER TABLE rich_list ADD COLUMN amount_desc BLOB NOT NULL DEFAULT X''; -- every byte of amount complemented: ascending is amount descending
-- hex(amount) with each hex digit d replaced by 15-d (through lowercase placeholders, which hex()
-- never prints), read back with unhex.
UPDATE rich_list SET amount_desc = unhex(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(hex(amount), '0', 'v'), '1', 'u'), '2', 't'), '3', 's'), '4', 'r'), '5', 'q'), '6', 'p'), '7', 'o'), '8', 'n'), '9', 'm'), 'A', 'l'), 'B', 'k'), 'C', 'j'), 'D', 'i'), 'E', 'h'), 'F', 'g'), 'g', '0'), 'h', '1'), 'i', '2'), 'j', '3'), 'k', '4'), 'l', '5'), 'm', '6'), 'n', '7'), 'o', '8'), 'p', '9'), 'q', 'A'), 'r', 'B'), 's', 'C'), 't', 'D'), 'u', 'E'), 'v', 'F'));
DROP INDEX rich_list_order;
CREATE INDEX rich_list_order ON rich_list (denom, amount_desc, account); -- holders by amount descending, account as tie-break

CREATE TABLE rich_list_rank ( -- buckets of each denom's holders in rich_list_order
  denom       TEXT    NOT NULL, -- as rich_list.denom
  amount_desc BLOB    NOT NULL, -- first key of the bucket: amount_desc, account (X'', X'' for the first bucket)
  account     BLOB    NOT NULL,
  n           INTEGER NOT NULL, -- holders from this key up to the next bucket's
  PRIMARY KEY (denom, amount_desc, account)
) WITHOUT ROWID;

-- A store indexed before this migration starts with one bucket per denom; the writer splits it
-- the first time a balance of that denom changes.
INSERT INTO rich_list_rank SELECT denom, X'', X'', COUNT(*) FROM rich_list GROUP BY denom;
