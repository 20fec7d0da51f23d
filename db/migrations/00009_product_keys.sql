-- +goose Up
CREATE TABLE product_keys (
  line_item_id BIGINT NOT NULL,
  position INT NOT NULL,
  purchase_id BIGINT NOT NULL,
  key_value VARCHAR(255) NOT NULL,
  PRIMARY KEY (line_item_id, position),
  KEY product_keys_purchase (purchase_id),
  CONSTRAINT product_keys_line_item_fk FOREIGN KEY (line_item_id) REFERENCES line_items (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE product_keys;
