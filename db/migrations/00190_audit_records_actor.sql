-- +goose Up
-- The actor of a record may be an API key; the record keeps the user's e-mail or the
-- key's name as they were, so that a removed user or a renamed key stays legible.
ALTER TABLE audit_records
  ADD COLUMN api_key_id BIGINT NULL AFTER user_id,
  ADD COLUMN actor VARCHAR(255) NOT NULL DEFAULT '' AFTER api_key_id;

-- +goose Down
ALTER TABLE audit_records DROP COLUMN actor, DROP COLUMN api_key_id;
