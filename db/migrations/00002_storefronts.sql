-- +goose Up
CREATE TABLE storefronts (
  id BIGINT NOT NULL AUTO_INCREMENT,
  account_id BIGINT NOT NULL,
  name VARCHAR(255) NOT NULL,
  currency CHAR(3) NULL,
  download_limit INT NOT NULL DEFAULT 0,
  download_days INT NOT NULL DEFAULT 0,
  past_due_grace_days INT NOT NULL DEFAULT 14,
  PRIMARY KEY (id),
  KEY storefronts_account (account_id, id),
  CONSTRAINT storefronts_account_fk FOREIGN KEY (account_id) REFERENCES accounts (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE storefronts;
