-- +goose Up
-- The purchase's account, so that Vitess routes the rows by it with their purchase (docs/SCALING.md).
-- Added with a default so that the change is instant, filled, then left without one:
-- a write that does not name the account fails (strict mode) instead of writing 0.
ALTER TABLE purchase_activity ADD COLUMN IF NOT EXISTS account_id BIGINT NOT NULL DEFAULT 0;
UPDATE purchase_activity a JOIN purchases p ON p.id = a.purchase_id SET a.account_id = p.account_id;
ALTER TABLE purchase_activity ALTER COLUMN account_id DROP DEFAULT;

-- +goose Down
ALTER TABLE purchase_activity DROP COLUMN IF EXISTS account_id;
