-- +goose Up
-- The user's account, so that Vitess routes a session with its user (docs/SCALING.md).
-- Added with a default so that the change is instant, filled, then left without one:
-- a write that does not name the account fails (strict mode) instead of writing 0.
ALTER TABLE user_sessions ADD COLUMN IF NOT EXISTS account_id BIGINT NOT NULL DEFAULT 0;
UPDATE user_sessions s JOIN users u ON u.id = s.user_id SET s.account_id = u.account_id;
ALTER TABLE user_sessions ALTER COLUMN account_id DROP DEFAULT;
-- Sign-in sweeps its account's expired sessions.
ALTER TABLE user_sessions ADD INDEX IF NOT EXISTS user_sessions_account_expires (account_id, expires_at);

-- +goose Down
ALTER TABLE user_sessions DROP INDEX IF EXISTS user_sessions_account_expires;
ALTER TABLE user_sessions DROP COLUMN IF EXISTS account_id;
