-- +goose Up
-- The primary's binlog position (GTID) after an account's latest write: a read for the
-- account goes to a replica only once the replica has applied it (docs/SCALING.md).
CREATE TABLE read_fences (
  account_id BIGINT NOT NULL,
  gtid_pos VARCHAR(1024) NOT NULL,
  updated_at DATETIME(6) NOT NULL,
  PRIMARY KEY (account_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE read_fences;
