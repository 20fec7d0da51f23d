-- +goose Up
-- A passkey ceremony under way (adding a passkey, or signing in with one): its challenge
-- and options as the WebAuthn library left them, found by the hash of a random token the
-- browser's session cookie holds, and deleted as it is used: each challenge is answered
-- once. A sign-in's account is not known yet (account_id 0), so the table is kept beside
-- sign_in_failures, outside the accounts' shards (docs/SCALING.md).
CREATE TABLE webauthn_ceremonies (
  token_hash BINARY(32) NOT NULL,
  kind VARCHAR(16) NOT NULL,
  account_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  name VARCHAR(64) NOT NULL DEFAULT '',
  session_data TEXT NOT NULL,
  expires_at DATETIME NOT NULL,
  PRIMARY KEY (token_hash),
  KEY webauthn_ceremonies_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE webauthn_ceremonies;
