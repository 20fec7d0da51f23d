-- +goose Up
-- The storefront's account, so that Vitess routes subscribers by it (docs/SCALING.md).
-- Added with a default so that the change is instant, filled, then left without one:
-- a write that does not name the account fails (strict mode) instead of writing 0.
ALTER TABLE subscribers ADD COLUMN IF NOT EXISTS account_id BIGINT NOT NULL DEFAULT 0;
UPDATE subscribers sb JOIN storefronts sf ON sf.id = sb.storefront_id SET sb.account_id = sf.account_id;
ALTER TABLE subscribers ALTER COLUMN account_id DROP DEFAULT;

-- +goose Down
ALTER TABLE subscribers DROP COLUMN IF EXISTS account_id;
