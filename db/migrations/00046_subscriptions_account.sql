-- +goose Up
-- The subscriber's account, so that Vitess routes subscriptions and subscriber activity
-- with their subscriber (docs/SCALING.md). Added with a default so that the change is
-- instant, filled, then left without one: a write that does not name the account fails
-- (strict mode) instead of writing 0.
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS account_id BIGINT NOT NULL DEFAULT 0;
UPDATE subscriptions ss JOIN subscribers sb ON sb.id = ss.subscriber_id SET ss.account_id = sb.account_id;
ALTER TABLE subscriptions ALTER COLUMN account_id DROP DEFAULT;
ALTER TABLE subscriber_activity ADD COLUMN IF NOT EXISTS account_id BIGINT NOT NULL DEFAULT 0;
UPDATE subscriber_activity a JOIN subscribers sb ON sb.id = a.subscriber_id SET a.account_id = sb.account_id;
ALTER TABLE subscriber_activity ALTER COLUMN account_id DROP DEFAULT;

-- +goose Down
ALTER TABLE subscriber_activity DROP COLUMN IF EXISTS account_id;
ALTER TABLE subscriptions DROP COLUMN IF EXISTS account_id;
