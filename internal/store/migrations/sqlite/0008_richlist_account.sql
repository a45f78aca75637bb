-- rollgate indexer schema, version 8 (SQLite): the rich list by account, so an account's
-- balances (the fleet's cross-rollup balances view) are a seek, not a scan of every holder of
-- every denom. The primary key (denom, account) serves a denom's holders only.

CREATE INDEX rich_list_account ON rich_list (account, denom); -- one account's rows, denom order
