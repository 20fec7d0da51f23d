-- +goose Up
-- Ordered access paths (db/README.md, "Plans"): equality filters lead, then the list
-- order (created_at, id), so a page is read in order from one range. The prefix and
-- total indexes carry created_at (and the primary key id, as every secondary index
-- does) so that a short range of matches is sorted from the index alone.
ALTER TABLE purchases
  DROP INDEX purchases_storefront_created, ADD INDEX purchases_storefront_created (account_id, storefront_id, created_at, id),
  DROP INDEX purchases_customer_created, ADD INDEX purchases_customer_created (account_id, customer_id, created_at, id),
  DROP INDEX purchases_subscriber_created, ADD INDEX purchases_subscriber_created (account_id, subscriber_id, created_at, id),
  DROP INDEX purchases_account_email, ADD INDEX purchases_account_email (account_id, buyer_email, storefront_id, created_at),
  DROP INDEX purchases_account_firstname, ADD INDEX purchases_account_firstname (account_id, buyer_firstname, created_at),
  DROP INDEX purchases_account_lastname, ADD INDEX purchases_account_lastname (account_id, buyer_lastname, created_at),
  DROP INDEX purchases_account_total, ADD INDEX purchases_account_total (account_id, total, created_at);

-- +goose Down
ALTER TABLE purchases
  DROP INDEX purchases_storefront_created, ADD INDEX purchases_storefront_created (storefront_id, created_at, id),
  DROP INDEX purchases_customer_created, ADD INDEX purchases_customer_created (customer_id, created_at, id),
  DROP INDEX purchases_subscriber_created, ADD INDEX purchases_subscriber_created (subscriber_id, created_at, id),
  DROP INDEX purchases_account_email, ADD INDEX purchases_account_email (account_id, buyer_email, storefront_id),
  DROP INDEX purchases_account_firstname, ADD INDEX purchases_account_firstname (account_id, buyer_firstname),
  DROP INDEX purchases_account_lastname, ADD INDEX purchases_account_lastname (account_id, buyer_lastname),
  DROP INDEX purchases_account_total, ADD INDEX purchases_account_total (account_id, total);
