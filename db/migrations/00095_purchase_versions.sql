-- +goose Up
-- One counter per account, bumped by every transaction that changes what the API
-- answers for the account's purchases (their rows, collections, stored documents or
-- filter paths), just before it commits. The API reads it with every list page and
-- purchase it answers (ETag, and the validated in-process response cache): an account
-- without a row is at version 0.
CREATE TABLE purchase_versions (
  account_id BIGINT NOT NULL,
  version BIGINT NOT NULL,
  PRIMARY KEY (account_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE purchase_versions;
