-- +goose Up
-- purchase_rollups summed by calendar month of the account's zone (month is its first
-- day), kept with it in the same transactions: the overview's sums over a long range
-- (the range before the one asked for) read whole months here and only the days at
-- either end from purchase_rollups.
CREATE TABLE purchase_rollups_monthly (
  account_id BIGINT NOT NULL,
  month DATE NOT NULL,
  storefront_id BIGINT NOT NULL,
  currency CHAR(3) NOT NULL,
  status CHAR(3) NOT NULL,
  purchases BIGINT NOT NULL,
  total DECIMAL(34,4) NOT NULL,
  PRIMARY KEY (account_id, month, storefront_id, currency, status)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE purchase_rollups_monthly;
