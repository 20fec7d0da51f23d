-- +goose Up
-- The prefix filters read their own ordered paths (purchase_prefixes, 00032), so the
-- list-order walks no longer check e-mails or names: the e-mail walk index goes, and
-- the names walk index keeps the total alone (a dense total comparison is checked on
-- its entries). That index begins with the list order's own columns, so it serves the
-- list order too, and purchases_account_created goes: one index fewer to write per
-- purchase.
ALTER TABLE purchases
  DROP INDEX purchases_account_created_email,
  DROP INDEX purchases_account_created_names,
  ADD INDEX purchases_account_created_total (account_id, created_at, id, total),
  DROP INDEX purchases_account_created;

-- +goose Down
ALTER TABLE purchases
  ADD INDEX purchases_account_created (account_id, created_at, id),
  DROP INDEX purchases_account_created_total,
  ADD INDEX purchases_account_created_email (account_id, created_at, id, buyer_email),
  ADD INDEX purchases_account_created_names (account_id, created_at, id, buyer_firstname, buyer_lastname, total);
