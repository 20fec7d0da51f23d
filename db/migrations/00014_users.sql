-- +goose Up
CREATE TABLE users (
  id BIGINT NOT NULL AUTO_INCREMENT,
  account_id BIGINT NOT NULL,
  email VARCHAR(191) NOT NULL,
  password_hash VARCHAR(255) NOT NULL,
  role VARCHAR(16) NOT NULL,
  created_at DATETIME NOT NULL,
  password_changed_at DATETIME NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY users_email (email),
  KEY users_account (account_id),
  CONSTRAINT users_account_fk FOREIGN KEY (account_id) REFERENCES accounts (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE users;
