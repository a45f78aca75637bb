-- rollgate indexer schema (PostgreSQL): per-account counts of the transfers index. Same
-- table as the SQLite twin; descriptions in COMMENT ON.

CREATE TABLE transfer_account (
  account bytea  PRIMARY KEY,
  n_in    bigint NOT NULL,
  n_out   bigint NOT NULL,
  n_self  bigint NOT NULL
);
COMMENT ON TABLE transfer_account IS 'one row per account that sent or received a stored transfer, kept in the block''s write transaction';
COMMENT ON COLUMN transfer_account.account IS 'raw address';
COMMENT ON COLUMN transfer_account.n_in IS 'transfers with to_addr = account';
COMMENT ON COLUMN transfer_account.n_out IS 'transfers with from_addr = account';
COMMENT ON COLUMN transfer_account.n_self IS 'transfers with both; the both-directions total is n_in + n_out - n_self';

INSERT INTO transfer_account (account, n_in, n_out, n_self)
SELECT account, SUM(n_in), SUM(n_out), SUM(n_self) FROM (
  SELECT to_addr AS account, 1 AS n_in, 0 AS n_out, CASE WHEN from_addr = to_addr THEN 1 ELSE 0 END AS n_self
    FROM transfer WHERE to_addr IS NOT NULL
  UNION ALL
  SELECT from_addr, 0, 1, 0 FROM transfer WHERE from_addr IS NOT NULL
) counts GROUP BY account;
