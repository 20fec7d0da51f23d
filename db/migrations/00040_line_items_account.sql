-- +goose Up
-- The purchase's account, so that Vitess routes the rows by it with their purchase (docs/SCALING.md).
-- Added with a default so that the change is instant, filled, then left without one:
-- a write that does not name the account fails (strict mode) instead of writing 0.
ALTER TABLE line_items ADD COLUMN IF NOT EXISTS account_id BIGINT NOT NULL DEFAULT 0;
UPDATE line_items li JOIN purchases p ON p.id = li.purchase_id SET li.account_id = p.account_id;
ALTER TABLE line_items ALTER COLUMN account_id DROP DEFAULT;

-- +goose Down
ALTER TABLE line_items DROP COLUMN IF EXISTS account_id;
