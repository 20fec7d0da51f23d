-- +goose Up
-- The storefront's account, so that Vitess routes products by it (docs/SCALING.md).
-- Added with a default so that the change is instant, filled, then left without one:
-- a write that does not name the account fails (strict mode) instead of writing 0.
ALTER TABLE products ADD COLUMN IF NOT EXISTS account_id BIGINT NOT NULL DEFAULT 0;
UPDATE products pr JOIN storefronts sf ON sf.id = pr.storefront_id SET pr.account_id = sf.account_id;
ALTER TABLE products ALTER COLUMN account_id DROP DEFAULT;
-- The dashboard's product list: an account's products by name.
ALTER TABLE products ADD INDEX IF NOT EXISTS products_account_name (account_id, name, id);

-- +goose Down
ALTER TABLE products DROP INDEX IF EXISTS products_account_name;
ALTER TABLE products DROP COLUMN IF EXISTS account_id;
