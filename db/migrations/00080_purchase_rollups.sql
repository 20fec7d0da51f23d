-- +goose Up
-- Each day's purchases of an account, by storefront, currency and status: how many and
-- the sum of their totals. The day is the purchase's date in the account's time zone.
-- Written in the same transaction as every change to a purchase's storefront, currency,
-- creation time, status or total (import, seed, reactivation), so that the overview sums
-- a few rows per day instead of every purchase. `storefront rollups rebuild` rebuilds it.
CREATE TABLE purchase_rollups (
  account_id BIGINT NOT NULL,
  day DATE NOT NULL,
  storefront_id BIGINT NOT NULL,
  currency CHAR(3) NOT NULL,
  status CHAR(3) NOT NULL,
  purchases BIGINT NOT NULL,
  total DECIMAL(34,4) NOT NULL,
  PRIMARY KEY (account_id, day, storefront_id, currency, status)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE purchase_rollups;
