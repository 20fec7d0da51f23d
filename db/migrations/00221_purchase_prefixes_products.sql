-- +goose Up
-- The products a purchase holds (its product ids, ascending, comma-separated: what
-- purchase_products holds for it) beside each entry of the e-mail's and the names'
-- prefix paths of two and three characters, NULL elsewhere, so that a product with a
-- prefix of two characters or more walks the prefix's range and checks the product on
-- the entry itself: a probe of the product's path for each entry cost as much as the
-- rest of the page (`customer_email=se&product_id=4`). Written with the rows, in the
-- same transaction (import, seed), and rebuilt with them (RebuildDerived).
ALTER TABLE purchase_prefixes ADD COLUMN products TEXT CHARACTER SET ascii COLLATE ascii_bin NULL;
-- Each row looks up its purchase's products by purchase_products_purchase: linear in the
-- rows (internal/mysql's prefixProductsFill is the same statement).
UPDATE purchase_prefixes x SET x.products = (
  SELECT GROUP_CONCAT(pp.product_id ORDER BY pp.product_id SEPARATOR ',')
  FROM purchase_products pp WHERE pp.account_id = x.account_id AND pp.purchase_id = x.purchase_id
)
WHERE x.field IN (1, 2, 3) AND x.prefix_len >= 2;

-- +goose Down
ALTER TABLE purchase_prefixes DROP COLUMN products;
