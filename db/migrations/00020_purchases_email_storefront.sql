-- +goose Up
-- The e-mail prefix index also carries the storefront, so that "e-mail prefix +
-- storefront" (the dashboard's search within one storefront) is counted and filtered
-- from the index alone instead of one primary-key lookup per matching e-mail.
ALTER TABLE purchases DROP INDEX purchases_account_email, ADD INDEX purchases_account_email (account_id, buyer_email, storefront_id);

-- +goose Down
ALTER TABLE purchases DROP INDEX purchases_account_email, ADD INDEX purchases_account_email (account_id, buyer_email);
