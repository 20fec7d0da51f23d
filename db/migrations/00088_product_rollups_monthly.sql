-- +goose Up
-- product_rollups summed by calendar month of the account's zone (month is its first
-- day), kept with it in the same transactions: the top products of a long range read
-- whole months here and only the days at either end from product_rollups.
CREATE TABLE product_rollups_monthly (
  account_id BIGINT NOT NULL,
  status CHAR(3) NOT NULL,
  month DATE NOT NULL,
  storefront_id BIGINT NOT NULL,
  currency CHAR(3) NOT NULL,
  product_id BIGINT NOT NULL,
  purchases BIGINT NOT NULL,
  total DECIMAL(34,4) NOT NULL,
  PRIMARY KEY (account_id, status, month, storefront_id, currency, product_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE product_rollups_monthly;
