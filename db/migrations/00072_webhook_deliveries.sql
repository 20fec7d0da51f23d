-- +goose Up
-- One delivery of an event to one endpoint: the outbox the delivery workers drain.
-- webhook_deliveries_due is the queue's key (as email_outbox_due): claims look across
-- accounts for due rows, and every later statement names the account.
CREATE TABLE webhook_deliveries (
  account_id BIGINT NOT NULL,
  id BIGINT NOT NULL AUTO_INCREMENT,
  endpoint_id BIGINT NOT NULL,
  event_id VARCHAR(40) NOT NULL,
  status VARCHAR(16) NOT NULL DEFAULT 'queued',
  attempts INT NOT NULL DEFAULT 0,
  next_attempt_at DATETIME NOT NULL,
  give_up_at DATETIME NOT NULL,
  last_status INT NULL,
  last_error VARCHAR(2000) NULL,
  created_at DATETIME NOT NULL,
  delivered_at DATETIME NULL,
  PRIMARY KEY (account_id, id),
  UNIQUE KEY webhook_deliveries_id (id),
  KEY webhook_deliveries_endpoint (account_id, endpoint_id, id),
  KEY webhook_deliveries_event (account_id, event_id),
  KEY webhook_deliveries_due (status, next_attempt_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE webhook_deliveries;
