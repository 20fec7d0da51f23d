-- +goose Up
-- The audit log filtered by a user: their records, newest first, without reading the
-- account's others.
CREATE INDEX audit_records_account_user ON audit_records (account_id, user_id, created_at);

-- +goose Down
DROP INDEX audit_records_account_user ON audit_records;
