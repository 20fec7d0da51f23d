-- +goose Up
-- The log of every attempt of a delivery: what was sent and what came back.
CREATE TABLE webhook_attempts (
  account_id BIGINT NOT NULL,
  id BIGINT NOT NULL AUTO_INCREMENT,
  delivery_id BIGINT NOT NULL,
  attempt INT NOT NULL,
  started_at DATETIME(3) NOT NULL,
  duration_ms INT NOT NULL,
  request_headers TEXT NOT NULL,
  status_code INT NULL,
  error VARCHAR(2000) NULL,
  response_body VARBINARY(2048) NULL,
  PRIMARY KEY (account_id, id),
  UNIQUE KEY webhook_attempts_id (id),
  KEY webhook_attempts_delivery (account_id, delivery_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE webhook_attempts;
