-- +goose Up
-- A customer's purchases (the customer page, GET /api/v2/customers/{email}): the
-- account, the exact address (utf8mb4_unicode_ci equality), then the list order, so
-- that a page of the customer with the most purchases is the next entries of one range.
ALTER TABLE purchases ADD INDEX purchases_account_email_created (account_id, buyer_email, created_at, id);

-- +goose Down
ALTER TABLE purchases DROP INDEX purchases_account_email_created;
