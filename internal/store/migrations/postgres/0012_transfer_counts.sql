-- rollgate indexer schema (PostgreSQL): the transfers index numbered by height, per-account
-- and per-denom counts, the backfill's state. Same tables as the SQLite twin; descriptions in
-- COMMENT ON.

CREATE TABLE transfer_renumber (height bigint PRIMARY KEY, lo bigint NOT NULL);
INSERT INTO transfer_renumber (height, lo) SELECT height, MIN(id) FROM transfer GROUP BY height;
UPDATE transfer SET id = -id;
UPDATE transfer SET id = transfer.height * 1048576 + (-transfer.id) - r.lo FROM transfer_renumber r WHERE r.height = transfer.height;
DROP TABLE transfer_renumber;

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

CREATE TABLE transfer_denom_count (
  denom text   PRIMARY KEY,
  n     bigint NOT NULL
);
COMMENT ON TABLE transfer_denom_count IS 'one row per denom of a stored transfer';
COMMENT ON COLUMN transfer_denom_count.denom IS 'as transfer.denom';
COMMENT ON COLUMN transfer_denom_count.n IS 'its transfers';
INSERT INTO transfer_denom_count (denom, n) SELECT denom, COUNT(*) FROM transfer GROUP BY denom;

CREATE TABLE transfer_backfill (
  id          integer PRIMARY KEY CHECK (id = 1),
  next_height bigint  NOT NULL,
  end_height  bigint  NOT NULL,
  rows        bigint  NOT NULL
);
COMMENT ON TABLE transfer_backfill IS 'single row: the heights `rollgate backfill-transfers` still reads';
COMMENT ON COLUMN transfer_backfill.next_height IS 'the next height to read; 0: not started';
COMMENT ON COLUMN transfer_backfill.end_height IS 'the last height to read (the one below the first the index wrote)';
COMMENT ON COLUMN transfer_backfill.rows IS 'transfers written so far';
INSERT INTO transfer_backfill (id, next_height, end_height, rows) VALUES (1, 0, 0, 0);
