-- +goose Up
-- A user's passkeys (WebAuthn credentials): the credential's id and public key, the
-- signature counter last seen (a counter that does not grow refuses the sign-in), and
-- the name the user gave it. The id numbers the passkey on the Security page.
CREATE TABLE user_passkeys (
  id BIGINT NOT NULL AUTO_INCREMENT,
  account_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  credential_id VARBINARY(1023) NOT NULL,
  name VARCHAR(64) NOT NULL,
  public_key BLOB NOT NULL,
  attestation_type VARCHAR(32) NOT NULL,
  aaguid VARBINARY(16) NOT NULL,
  transports VARCHAR(128) NOT NULL DEFAULT '',
  flags TINYINT UNSIGNED NOT NULL,
  sign_count BIGINT NOT NULL,
  created_at DATETIME NOT NULL,
  last_used_at DATETIME NULL,
  PRIMARY KEY (id),
  UNIQUE KEY user_passkeys_credential (account_id, credential_id),
  KEY user_passkeys_user (account_id, user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE user_passkeys;
