-- +goose Up
-- Plain-text notes staff write about a customer (an address within the account) or a
-- purchase, with their author.
CREATE TABLE notes (
  account_id BIGINT NOT NULL,
  id BIGINT NOT NULL AUTO_INCREMENT,
  customer_email VARCHAR(255) NULL,
  purchase_id BIGINT NULL,
  author_id BIGINT NOT NULL,
  author VARCHAR(255) NOT NULL,
  body TEXT NOT NULL,
  created_at DATETIME NOT NULL,
  PRIMARY KEY (account_id, id),
  KEY notes_id (id),
  KEY notes_customer (account_id, customer_email, id),
  KEY notes_purchase (account_id, purchase_id, id),
  CONSTRAINT notes_account_fk FOREIGN KEY (account_id) REFERENCES accounts (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE notes;
