-- +goose Up
CREATE TABLE subscribers (
  id BIGINT NOT NULL AUTO_INCREMENT,
  storefront_id BIGINT NOT NULL,
  username VARCHAR(255) NOT NULL,
  created_at DATETIME NOT NULL,
  updated_at DATETIME NOT NULL,
  last_login_at DATETIME NULL,
  PRIMARY KEY (id),
  KEY subscribers_storefront_username (storefront_id, username),
  KEY subscribers_storefront_created (storefront_id, created_at, id),
  CONSTRAINT subscribers_storefront_fk FOREIGN KEY (storefront_id) REFERENCES storefronts (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE subscribers;
