-- +goose Up
INSERT INTO purchase_rollups_weekly (account_id, week, storefront_id, currency, status, purchases, total)
SELECT r.account_id, r.day - INTERVAL o.n DAY, r.storefront_id, r.currency, r.status, SUM(r.purchases), SUM(r.total)
FROM purchase_rollups r
JOIN (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6) o
GROUP BY r.account_id, r.day - INTERVAL o.n DAY, r.storefront_id, r.currency, r.status
ON DUPLICATE KEY UPDATE purchases = VALUES(purchases), total = VALUES(total);

-- +goose Down
DELETE FROM purchase_rollups_weekly;
