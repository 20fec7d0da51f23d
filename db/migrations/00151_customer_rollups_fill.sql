-- +goose Up
INSERT INTO customer_rollups (account_id, email, currency, status, purchases, total, to_ship)
SELECT account_id, buyer_email COLLATE utf8mb4_unicode_nopad_ci, currency, status, COUNT(*), SUM(total), SUM(to_ship)
FROM purchases
WHERE buyer_email IS NOT NULL
GROUP BY account_id, buyer_email COLLATE utf8mb4_unicode_nopad_ci, currency, status
ON DUPLICATE KEY UPDATE purchases = VALUES(purchases), total = VALUES(total), to_ship = VALUES(to_ship);

-- +goose Down
DELETE FROM customer_rollups;
