-- +goose Up
-- Every e-mail sent to one address within the account, newest first (the customer page).
ALTER TABLE email_outbox ADD INDEX email_outbox_account_to (account_id, to_address, id);

-- +goose Down
ALTER TABLE email_outbox DROP INDEX email_outbox_account_to;
