-- +goose Up
-- The audit log filtered by an API key's name (or a removed user's e-mail), as the
-- records keep it, newest first.
CREATE INDEX audit_records_account_actor ON audit_records (account_id, actor, created_at);

-- +goose Down
DROP INDEX audit_records_account_actor ON audit_records;
