-- +goose Up
-- The Security page lists a user's sessions, and "Sign out everywhere else" ends them.
ALTER TABLE user_sessions ADD INDEX IF NOT EXISTS user_sessions_account_user (account_id, user_id);

-- +goose Down
ALTER TABLE user_sessions DROP INDEX IF EXISTS user_sessions_account_user;
