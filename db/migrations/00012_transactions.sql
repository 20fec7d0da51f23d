-- +goose Up
CREATE TABLE transactions (
  id BIGINT NOT NULL AUTO_INCREMENT,
  purchase_id BIGINT NOT NULL,
  action VARCHAR(64) NOT NULL,
  amount DECIMAL(19,4) NOT NULL,
  currency CHAR(3) NOT NULL,
  gateway VARCHAR(255) NOT NULL,
  is_success BOOLEAN NOT NULL,
  reference VARCHAR(255) NULL,
  message TEXT NULL,
  created_at DATETIME NOT NULL,
  updated_at DATETIME NOT NULL,
  PRIMARY KEY (id),
  KEY transactions_purchase (purchase_id, id),
  CONSTRAINT transactions_purchase_fk FOREIGN KEY (purchase_id) REFERENCES purchases (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE transactions;
