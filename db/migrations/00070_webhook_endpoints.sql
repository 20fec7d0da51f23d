-- +goose Up
-- An account's webhook endpoints (docs/WEBHOOKS.md). The key on id alone serves the
-- AUTO_INCREMENT and `storefront webhook delete ID`; every other statement names the
-- account and uses the primary key.
CREATE TABLE webhook_endpoints (
  account_id BIGINT NOT NULL,
  id BIGINT NOT NULL AUTO_INCREMENT,
  url VARCHAR(2048) NOT NULL,
  event_types VARCHAR(255) NOT NULL DEFAULT '',
  secret VARCHAR(100) NOT NULL,
  previous_secret VARCHAR(100) NULL,
  previous_secret_until DATETIME NULL,
  enabled BOOLEAN NOT NULL DEFAULT TRUE,
  disabled_reason VARCHAR(255) NULL,
  failing_since DATETIME NULL,
  created_at DATETIME NOT NULL,
  updated_at DATETIME NOT NULL,
  PRIMARY KEY (account_id, id),
  UNIQUE KEY webhook_endpoints_id (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE webhook_endpoints;
