-- +goose Up
-- The purchase's buyer address on each entry of its timeline, kept equal to the
-- purchase's in the same transaction as the entry's insert and every change of the
-- address (an import), so that a customer's activity (the customer page) is the
-- newest entries of one range, whatever the number of their purchases.
ALTER TABLE purchase_activity ADD COLUMN buyer_email VARCHAR(255) NULL,
  ADD INDEX purchase_activity_account_email (account_id, buyer_email, id);

-- +goose Down
ALTER TABLE purchase_activity DROP INDEX purchase_activity_account_email, DROP COLUMN buyer_email;
