-- +goose Up
CREATE TABLE subscriptions (
  id BIGINT NOT NULL AUTO_INCREMENT,
  subscriber_id BIGINT NOT NULL,
  status VARCHAR(16) NOT NULL,
  price DECIMAL(19,4) NOT NULL,
  period INT NOT NULL,
  unit CHAR(1) NOT NULL,
  tax_amount DECIMAL(19,4) NOT NULL,
  trial_price DECIMAL(19,4) NULL,
  trial_period INT NULL,
  trial_unit CHAR(1) NULL,
  trial_tax_amount DECIMAL(19,4) NULL,
  created_at DATETIME NOT NULL,
  updated_at DATETIME NOT NULL,
  started_at DATETIME NULL,
  ended_at DATETIME NULL,
  trial_started_at DATETIME NULL,
  last_payment_at DATETIME NULL,
  next_payment_at DATETIME NULL,
  PRIMARY KEY (id),
  UNIQUE KEY subscriptions_subscriber (subscriber_id),
  KEY subscriptions_status_next_payment (status, next_payment_at),
  CONSTRAINT subscriptions_subscriber_fk FOREIGN KEY (subscriber_id) REFERENCES subscribers (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE subscriptions;
