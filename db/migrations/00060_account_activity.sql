-- +goose Up
-- What happened in an account that belongs to no one purchase or subscriber: each CSV
-- export, with who asked, its filters and how many rows left.
CREATE TABLE account_activity (
  account_id BIGINT NOT NULL,
  id BIGINT NOT NULL AUTO_INCREMENT,
  actor VARCHAR(255) NOT NULL,
  action VARCHAR(64) NOT NULL,
  details TEXT NOT NULL,
  created_at DATETIME NOT NULL,
  PRIMARY KEY (account_id, id),
  KEY account_activity_id (id),
  CONSTRAINT account_activity_account_fk FOREIGN KEY (account_id) REFERENCES accounts (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE account_activity;
