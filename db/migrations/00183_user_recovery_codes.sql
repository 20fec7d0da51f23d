-- +goose Up
-- A user's recovery codes, kept as SHA-256 hashes; each is used once.
CREATE TABLE user_recovery_codes (
  account_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  code_hash BINARY(32) NOT NULL,
  used_at DATETIME NULL,
  PRIMARY KEY (account_id, user_id, code_hash)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE user_recovery_codes;
