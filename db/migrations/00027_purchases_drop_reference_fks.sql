-- +goose Up
-- Every list index of purchases leads with the account (00028), so that a filter on
-- another account's storefront, customer or subscriber is one empty range; the
-- storefront, customer and subscriber constraints would each need an index of their
-- own column first. The importer and the seeder check these references before they
-- write (they write with foreign key checks off), and nothing else writes them.
ALTER TABLE purchases DROP FOREIGN KEY purchases_storefront_fk, DROP FOREIGN KEY purchases_customer_fk, DROP FOREIGN KEY purchases_subscriber_fk;

-- +goose Down
ALTER TABLE purchases ADD CONSTRAINT purchases_storefront_fk FOREIGN KEY (storefront_id) REFERENCES storefronts (id), ADD CONSTRAINT purchases_customer_fk FOREIGN KEY (customer_id) REFERENCES customers (id), ADD CONSTRAINT purchases_subscriber_fk FOREIGN KEY (subscriber_id) REFERENCES subscribers (id);
