-- +goose Up
INSERT IGNORE INTO purchase_products (account_id, product_id, created_at, purchase_id)
SELECT p.account_id, li.product_id, p.created_at, p.id
FROM purchases p JOIN line_items li ON li.purchase_id = p.id;

-- +goose Down
DELETE FROM purchase_products;
