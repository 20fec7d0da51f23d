-- +goose Up
-- What the Security page shows of a session: an id to sign it out by (the token hash
-- never leaves the database), the device (from the user agent) and the address it
-- signed in from.
ALTER TABLE user_sessions
  ADD COLUMN IF NOT EXISTS id BIGINT NOT NULL AUTO_INCREMENT UNIQUE KEY,
  ADD COLUMN IF NOT EXISTS device VARCHAR(255) NOT NULL DEFAULT '',
  ADD COLUMN IF NOT EXISTS address VARCHAR(64) NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE user_sessions DROP COLUMN IF EXISTS address, DROP COLUMN IF EXISTS device, DROP COLUMN IF EXISTS id;
