-- rollgate indexer schema (SQLite): the transfers index numbered by height, per-account and
-- per-denom counts kept by the transfers writer in the block's own write transaction (a list's
-- total without counting its rows), and the state of the backfill of heights indexed before
-- the transfers index existed.

-- Ids become height << 20 + the row's position in its block (store.TransferID), so rows a
-- backfill writes for old heights sort before the newer ones. Negated first: no new id meets
-- an old one during the update.
CREATE TABLE transfer_renumber (height INTEGER PRIMARY KEY, lo INTEGER NOT NULL);
INSERT INTO transfer_renumber (height, lo) SELECT height, MIN(id) FROM transfer GROUP BY height;
UPDATE transfer SET id = -id;
UPDATE transfer SET id = height * 1048576 + (-id) - (SELECT lo FROM transfer_renumber r WHERE r.height = transfer.height);
DROP TABLE transfer_renumber;

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

CREATE TABLE transfer_denom_count ( -- one row per denom of a stored transfer
  denom TEXT    PRIMARY KEY, -- as transfer.denom
  n     INTEGER NOT NULL     -- its transfers
) WITHOUT ROWID;
INSERT INTO transfer_denom_count (denom, n) SELECT denom, COUNT(*) FROM transfer GROUP BY denom;

CREATE TABLE transfer_backfill ( -- single row: the heights `rollgate backfill-transfers` still reads
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  next_height INTEGER NOT NULL, -- the next height to read; 0: not started
  end_height  INTEGER NOT NULL, -- the last height to read (the one below the first the index wrote)
  rows        INTEGER NOT NULL  -- transfers written so far
);
INSERT INTO transfer_backfill (id, next_height, end_height, rows) VALUES (1, 0, 0, 0);
