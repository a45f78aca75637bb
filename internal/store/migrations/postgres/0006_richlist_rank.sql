-- rollgate indexer schema, version 6 (PostgreSQL): rank buckets of the rich list. Same columns
-- as the SQLite twin; the descriptions live in COMMENT ON.

ALTER TABLE rich_list ADD COLUMN amount_desc bytea;
UPDATE rich_list SET amount_desc = decode(translate(encode(amount, 'hex'), '0123456789abcdef', 'fedcba9876543210'), 'hex');
ALTER TABLE rich_list ALTER COLUMN amount_desc SET NOT NULL;
COMMENT ON COLUMN rich_list.amount_desc IS 'every byte of amount complemented: ascending is amount descending, so (denom, amount_desc, account) is the list order with every column ascending';
DROP INDEX rich_list_order;
CREATE INDEX rich_list_order ON rich_list (denom, amount_desc, account);

CREATE TABLE rich_list_rank (
  denom       text   NOT NULL,
  amount_desc bytea  NOT NULL,
  account     bytea  NOT NULL,
  n           bigint NOT NULL,
  PRIMARY KEY (denom, amount_desc, account)
);
COMMENT ON TABLE rich_list_rank IS 'buckets of each denom''s holders in rich_list_order, so an offset page is a seek plus a short skip';
COMMENT ON COLUMN rich_list_rank.amount_desc IS 'first key of the bucket: amount_desc, account (empty, empty for the first bucket)';
COMMENT ON COLUMN rich_list_rank.n IS 'holders from this key up to the next bucket''s';

-- A store indexed before this migration starts with one bucket per denom; the writer splits it
-- the first time a balance of that denom changes.
INSERT INTO rich_list_rank SELECT denom, '\x'::bytea, '\x'::bytea, COUNT(*) FROM rich_list GROUP BY denom;
