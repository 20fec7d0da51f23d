-- +goose Up
-- Failed dashboard sign-ins per client address and per e-mail, shared by every
-- instance so that the sign-in throttle holds across them (web/dashboard.go). The key
-- is the SHA-256 of "ip:..." or "email:...": what was typed into the e-mail field is
-- not kept.
CREATE TABLE sign_in_failures (
  key_hash BINARY(32) NOT NULL,
  failures INT NOT NULL,
  last_failed_at DATETIME(6) NOT NULL,
  PRIMARY KEY (key_hash),
  KEY sign_in_failures_last (last_failed_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE sign_in_failures;
