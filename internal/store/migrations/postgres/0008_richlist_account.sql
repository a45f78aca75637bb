-- rollgate indexer schema, version 8 (PostgreSQL): the rich list by account. Same index as the
-- SQLite twin; the description lives in COMMENT ON.

CREATE INDEX rich_list_account ON rich_list (account, denom);
COMMENT ON INDEX rich_list_account IS 'one account''s rows in denom order: an account''s balances are a seek, not a scan of every holder (the primary key (denom, account) serves a denom''s holders only)';
