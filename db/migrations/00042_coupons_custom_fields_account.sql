-- +goose Up
-- The purchase's account, so that Vitess routes the rows by it with their purchase
-- (docs/SCALING.md). Added with a default so that the change is instant, filled, then
-- left without one: a write that does not name the account fails (strict mode) instead
-- of writing 0.
ALTER TABLE coupons ADD COLUMN IF NOT EXISTS account_id BIGINT NOT NULL DEFAULT 0;
UPDATE coupons c JOIN purchases p ON p.id = c.purchase_id SET c.account_id = p.account_id;
ALTER TABLE coupons ALTER COLUMN account_id DROP DEFAULT;
ALTER TABLE custom_fields ADD COLUMN IF NOT EXISTS account_id BIGINT NOT NULL DEFAULT 0;
UPDATE custom_fields f JOIN purchases p ON p.id = f.purchase_id SET f.account_id = p.account_id;
ALTER TABLE custom_fields ALTER COLUMN account_id DROP DEFAULT;

-- +goose Down
ALTER TABLE custom_fields DROP COLUMN IF EXISTS account_id;
ALTER TABLE coupons DROP COLUMN IF EXISTS account_id;
