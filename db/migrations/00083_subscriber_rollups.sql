-- +goose Up
-- Each day's service terms of an account by storefront: how many started and how many
-- ended that day (in the account's time zone), kept with subscriber_terms. Subscribers
-- receiving service at the start of a day are the starts before it less the ends.
CREATE TABLE subscriber_rollups (
  account_id BIGINT NOT NULL,
  day DATE NOT NULL,
  storefront_id BIGINT NOT NULL,
  started BIGINT NOT NULL,
  ended BIGINT NOT NULL,
  PRIMARY KEY (account_id, day, storefront_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE subscriber_rollups;
