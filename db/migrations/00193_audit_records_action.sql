-- +goose Up
-- The audit log filtered by action, newest first.
CREATE INDEX audit_records_account_action ON audit_records (account_id, action, created_at);

-- +goose Down
DROP INDEX audit_records_account_action ON audit_records;
