-- +goose Up
CREATE TABLE api_keys (
  id BIGINT NOT NULL AUTO_INCREMENT,
  account_id BIGINT NOT NULL,
  name VARCHAR(255) NOT NULL DEFAULT '',
  key_hash BINARY(32) NOT NULL,
  scope VARCHAR(16) NOT NULL,
  created_at DATETIME NOT NULL,
  last_used_at DATETIME NULL,
  revoked_at DATETIME NULL,
  PRIMARY KEY (id),
  UNIQUE KEY api_keys_hash (key_hash),
  KEY api_keys_account (account_id),
  CONSTRAINT api_keys_account_fk FOREIGN KEY (account_id) REFERENCES accounts (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE api_keys;
