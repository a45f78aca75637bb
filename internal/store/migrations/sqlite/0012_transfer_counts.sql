-- rollgate indexer schema (SQLite): per-account counts of the transfers index, kept by the
-- transfers writer in the block's own write transaction, so an account's transfer list gives
-- its total without counting its rows. The counts of a store indexed before are computed
-- here once from its rows.

CREATE TABLE transfer_account ( -- one row per account that sent or received a stored transfer
  account BLOB    PRIMARY KEY, -- raw address
  n_in    INTEGER NOT NULL,    -- transfers with to_addr = account
  n_out   INTEGER NOT NULL,    -- transfers with from_addr = account
  n_self  INTEGER NOT NULL     -- transfers with both; the both-directions total is n_in + n_out - n_self
) WITHOUT ROWID;

INSERT INTO transfer_account (account, n_in, n_out, n_self)
SELECT account, SUM(n_in), SUM(n_out), SUM(n_self) FROM (
  SELECT to_addr AS account, 1 AS n_in, 0 AS n_out, CASE WHEN from_addr = to_addr THEN 1 ELSE 0 END AS n_self
    FROM transfer WHERE to_addr IS NOT NULL
  UNION ALL
  SELECT from_addr, 0, 1, 0 FROM transfer WHERE from_addr IS NOT NULL
) GROUP BY account;
