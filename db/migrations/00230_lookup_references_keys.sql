-- +goose Up
-- The search's ref: and key: (docs/SEARCH.md#references-and-keys): the
-- purchases whose payment reference, or product key, equals a text. Support is handed
-- these whole (a processor's charge id, a key a buyer writes in with), so each is one
-- range of its account's entries, then the purchase's id.
ALTER TABLE transactions ADD INDEX transactions_account_reference (account_id, reference, purchase_id);
ALTER TABLE product_keys ADD INDEX product_keys_account_key (account_id, key_value, purchase_id);

-- +goose Down
ALTER TABLE transactions DROP INDEX transactions_account_reference;
ALTER TABLE product_keys DROP INDEX product_keys_account_key;
