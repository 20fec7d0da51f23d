-- +goose Up
CREATE TABLE coupons (
  purchase_id BIGINT NOT NULL,
  position INT NOT NULL,
  name VARCHAR(255) NOT NULL,
  code VARCHAR(255) NOT NULL,
  discount_amount VARCHAR(40) NOT NULL,
  discount_type VARCHAR(16) NOT NULL,
  PRIMARY KEY (purchase_id, position),
  CONSTRAINT coupons_purchase_fk FOREIGN KEY (purchase_id) REFERENCES purchases (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE coupons;
