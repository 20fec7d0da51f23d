-- +goose Up
-- Covering indexes for walking the list order with a dense prefix or total condition
-- (db/README.md, "Plans"): the condition is checked on each index entry, so a page is
-- found without reading a row per entry passed over. id is named so that the entries are
-- in list order, (created_at, id), before the checked columns.
ALTER TABLE purchases
  ADD INDEX purchases_account_created_email (account_id, created_at, id, buyer_email),
  ADD INDEX purchases_account_created_names (account_id, created_at, id, buyer_firstname, buyer_lastname, total);

-- +goose Down
ALTER TABLE purchases DROP INDEX purchases_account_created_email, DROP INDEX purchases_account_created_names;
