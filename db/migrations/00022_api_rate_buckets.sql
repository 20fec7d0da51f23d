-- +goose Up
-- One token bucket per API key shared by every instance; instances lease tokens from
-- it in batches (web/ratelimit.go, docs/SCALING.md).
CREATE TABLE api_rate_buckets (
  key_id BIGINT NOT NULL,
  tokens DOUBLE NOT NULL,
  refilled_at DATETIME(6) NOT NULL,
  PRIMARY KEY (key_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE api_rate_buckets;
