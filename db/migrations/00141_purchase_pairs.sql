-- +goose Up
-- Ordered paths of two filters together (db/README.md, "Pairs"): for each purchase with
-- a mark (a status other than ACT, named by its code, or tangibles left to ship,
-- "ship"), one row per mark and product it holds (field 0) and one per mark and prefix
-- of 1, 2 and 3 characters of its e-mail (field 1, the e-mail beside the key as in
-- purchase_prefixes), keyed in list order within the account, mark, field, product and
-- prefix. A page of product_id=4&ship=1 or customer_email=re&status=HLD is then the
-- next entries of one range, where walking the product's or the prefix's path passed
-- over the purchases without the mark, each a row read. Written with the purchase, in
-- the same transaction (import, seed; a reactivation deletes those of its status), and
-- found by the keys its row and line items give them to be replaced.
CREATE TABLE purchase_pairs (
  account_id BIGINT NOT NULL,
  mark VARCHAR(4) NOT NULL,
  field TINYINT NOT NULL,
  product_id BIGINT NOT NULL,
  prefix_len TINYINT NOT NULL,
  prefix VARCHAR(3) NOT NULL,
  created_at DATETIME NOT NULL,
  purchase_id BIGINT NOT NULL,
  value VARCHAR(255) NOT NULL,
  PRIMARY KEY (account_id, mark, field, product_id, prefix_len, prefix, created_at, purchase_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE purchase_pairs;
