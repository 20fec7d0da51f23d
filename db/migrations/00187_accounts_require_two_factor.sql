-- +goose Up
-- An owner may require two-step sign-in for every user of the account.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS require_two_factor BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE accounts DROP COLUMN IF EXISTS require_two_factor;
