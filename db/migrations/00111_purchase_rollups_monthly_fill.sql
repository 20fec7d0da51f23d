-- +goose Up
INSERT INTO purchase_rollups_monthly (account_id, month, storefront_id, currency, status, purchases, total)
SELECT account_id, DATE_FORMAT(day, '%Y-%m-01'), storefront_id, currency, status, SUM(purchases), SUM(total)
FROM purchase_rollups
GROUP BY account_id, DATE_FORMAT(day, '%Y-%m-01'), storefront_id, currency, status
ON DUPLICATE KEY UPDATE purchases = VALUES(purchases), total = VALUES(total);

-- +goose Down
DELETE FROM purchase_rollups_monthly;
