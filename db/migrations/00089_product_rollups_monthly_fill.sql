-- +goose Up
INSERT INTO product_rollups_monthly (account_id, status, month, storefront_id, currency, product_id, purchases, total)
SELECT account_id, status, DATE_FORMAT(day, '%Y-%m-01'), storefront_id, currency, product_id, SUM(purchases), SUM(total)
FROM product_rollups
GROUP BY account_id, status, DATE_FORMAT(day, '%Y-%m-01'), storefront_id, currency, product_id
ON DUPLICATE KEY UPDATE purchases = VALUES(purchases), total = VALUES(total);

-- +goose Down
DELETE FROM product_rollups_monthly;
