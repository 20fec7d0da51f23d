-- +goose Up
-- Each subscriber's service term as its subscription says today (docs/API.md#entitlement):
-- from the trial's or the subscription's start, until the end of a canceled or closed
-- subscription's term (NULL: still receiving service). A subscription that never gave
-- service (NEW, or CANCELED with no known term) has no row. Written with the
-- subscription (import, seed, the past-due sweeper); the overview counts starts and
-- ends in the edges of its range from here, and whole days from subscriber_rollups.
CREATE TABLE subscriber_terms (
  account_id BIGINT NOT NULL,
  subscriber_id BIGINT NOT NULL,
  storefront_id BIGINT NOT NULL,
  start_at DATETIME NOT NULL,
  end_at DATETIME NULL,
  PRIMARY KEY (account_id, subscriber_id),
  KEY subscriber_terms_start (account_id, start_at, storefront_id),
  KEY subscriber_terms_end (account_id, end_at, storefront_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE subscriber_terms;
