-- +goose Up
CREATE TABLE custom_fields (
  purchase_id BIGINT NOT NULL,
  position INT NOT NULL,
  label VARCHAR(255) NOT NULL,
  response TEXT NOT NULL,
  PRIMARY KEY (purchase_id, position),
  CONSTRAINT custom_fields_purchase_fk FOREIGN KEY (purchase_id) REFERENCES purchases (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE custom_fields;
