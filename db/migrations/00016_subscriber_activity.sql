-- +goose Up
CREATE TABLE subscriber_activity (
  id BIGINT NOT NULL AUTO_INCREMENT,
  subscriber_id BIGINT NOT NULL,
  actor VARCHAR(255) NOT NULL,
  action VARCHAR(64) NOT NULL,
  details TEXT NOT NULL,
  created_at DATETIME NOT NULL,
  PRIMARY KEY (id),
  KEY subscriber_activity_subscriber (subscriber_id, id),
  CONSTRAINT subscriber_activity_subscriber_fk FOREIGN KEY (subscriber_id) REFERENCES subscribers (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE subscriber_activity;
