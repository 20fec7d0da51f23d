-- +goose Up
-- A user's authenticator app (TOTP, RFC 6238): its base32 secret and the last time step
-- whose code was accepted, so that each code is accepted once.
CREATE TABLE user_totp (
  account_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  secret VARCHAR(64) NOT NULL,
  last_step BIGINT NOT NULL,
  created_at DATETIME NOT NULL,
  PRIMARY KEY (account_id, user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE user_totp;
