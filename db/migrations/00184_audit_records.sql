-- +goose Up
-- What was done to sign in and to guard the account, by whom and from where: written in
-- the transaction of the change it records, never edited or deleted by the product.
CREATE TABLE audit_records (
  id BIGINT NOT NULL AUTO_INCREMENT,
  account_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  action VARCHAR(40) NOT NULL,
  details VARCHAR(255) NOT NULL DEFAULT '',
  address VARCHAR(64) NOT NULL,
  user_agent VARCHAR(255) NOT NULL,
  created_at DATETIME NOT NULL,
  PRIMARY KEY (id),
  KEY audit_records_account_created (account_id, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE audit_records;
