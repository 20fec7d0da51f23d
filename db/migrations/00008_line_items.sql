-- +goose Up
CREATE TABLE line_items (
  id BIGINT NOT NULL AUTO_INCREMENT,
  purchase_id BIGINT NOT NULL,
  product_id BIGINT NOT NULL,
  price DECIMAL(19,4) NOT NULL,
  quantity INT NOT NULL,
  subtotal DECIMAL(19,4) NOT NULL,
  tax DECIMAL(19,4) NOT NULL,
  discount DECIMAL(19,4) NOT NULL,
  total DECIMAL(19,4) NOT NULL,
  product_name VARCHAR(255) NOT NULL,
  download_limit INT NOT NULL DEFAULT 0,
  download_count INT NOT NULL DEFAULT 0,
  expires_at DATETIME NULL,
  has_all_keys BOOLEAN NOT NULL DEFAULT FALSE,
  PRIMARY KEY (id),
  KEY line_items_purchase (purchase_id, id),
  KEY line_items_product_purchase (product_id, purchase_id),
  CONSTRAINT line_items_purchase_fk FOREIGN KEY (purchase_id) REFERENCES purchases (id) ON DELETE CASCADE,
  CONSTRAINT line_items_product_fk FOREIGN KEY (product_id) REFERENCES products (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE line_items;
