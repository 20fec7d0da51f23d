-- +goose Up
CREATE TABLE idempotency_keys (
  id BIGINT NOT NULL AUTO_INCREMENT,
  account_id BIGINT NOT NULL,
  purchase_id BIGINT NOT NULL,
  idem_key VARBINARY(255) NOT NULL,
  request_hash BINARY(32) NOT NULL,
  response_status INT NOT NULL,
  response_body TEXT NOT NULL,
  created_at DATETIME NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY idempotency_keys_key (account_id, purchase_id, idem_key),
  KEY idempotency_keys_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE idempotency_keys;
