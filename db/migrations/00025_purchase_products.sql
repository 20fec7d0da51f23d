-- +goose Up
-- The product filter's ordered access path: one row per (purchase, product it holds),
-- keyed in list order within the account and product, so that a page of a product's
-- purchases is one range read of at most a page of entries, whatever the product's
-- popularity, and another account's product is one empty range. Written with the
-- purchase's line items, in the same transaction (import, seed).
CREATE TABLE purchase_products (
  account_id BIGINT NOT NULL,
  product_id BIGINT NOT NULL,
  created_at DATETIME NOT NULL,
  purchase_id BIGINT NOT NULL,
  PRIMARY KEY (account_id, product_id, created_at, purchase_id),
  KEY purchase_products_purchase (account_id, purchase_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE purchase_products;
