-- +goose Up
-- Each day's line items of an account by status, storefront, currency and product: how
-- many purchases hold the product and the sum of its line items' totals, kept with
-- purchase_rollups. The status leads the day so that the revenue of active purchases
-- over a range is one range read.
CREATE TABLE product_rollups (
  account_id BIGINT NOT NULL,
  status CHAR(3) NOT NULL,
  day DATE NOT NULL,
  storefront_id BIGINT NOT NULL,
  currency CHAR(3) NOT NULL,
  product_id BIGINT NOT NULL,
  purchases BIGINT NOT NULL,
  total DECIMAL(34,4) NOT NULL,
  PRIMARY KEY (account_id, status, day, storefront_id, currency, product_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE product_rollups;
