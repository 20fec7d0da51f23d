-- +goose Up
-- The prefix filters read purchase_prefixes (00032), whose rows hold the storefront
-- too: the e-mail and name indexes of purchases are read by nothing any more, and each
-- cost a write at a random place per purchase.
ALTER TABLE purchases
  DROP INDEX purchases_account_email,
  DROP INDEX purchases_account_firstname,
  DROP INDEX purchases_account_lastname;

-- +goose Down
ALTER TABLE purchases
  ADD INDEX purchases_account_email (account_id, buyer_email, storefront_id, created_at),
  ADD INDEX purchases_account_firstname (account_id, buyer_firstname, created_at),
  ADD INDEX purchases_account_lastname (account_id, buyer_lastname, created_at);
