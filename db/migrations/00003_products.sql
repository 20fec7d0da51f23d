-- +goose Up
CREATE TABLE products (
  id BIGINT NOT NULL AUTO_INCREMENT,
  storefront_id BIGINT NOT NULL,
  name VARCHAR(255) NOT NULL,
  PRIMARY KEY (id),
  KEY products_storefront (storefront_id, name),
  CONSTRAINT products_storefront_fk FOREIGN KEY (storefront_id) REFERENCES storefronts (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE products;
