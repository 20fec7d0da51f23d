-- +goose Up
-- Every event, written in the same transaction as the change it reports, with the
-- exact body that is delivered (so that retries and replays send the same bytes).
CREATE TABLE webhook_events (
  account_id BIGINT NOT NULL,
  event_id VARCHAR(40) NOT NULL,
  type VARCHAR(64) NOT NULL,
  created_at DATETIME NOT NULL,
  body MEDIUMBLOB NOT NULL,
  PRIMARY KEY (account_id, event_id),
  KEY webhook_events_created (account_id, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE webhook_events;
