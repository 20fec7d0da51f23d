-- +goose Up
-- Named filter sets of the purchases page: a view is its query string. A user's own
-- (user_id) or the whole account's (user_id NULL, made by owners); shown as tabs in
-- position order. Ids count per account.
CREATE TABLE saved_views (
  account_id BIGINT NOT NULL,
  id BIGINT NOT NULL,
  user_id BIGINT NULL,
  name VARCHAR(80) NOT NULL,
  query TEXT NOT NULL,
  position INT NOT NULL,
  created_at DATETIME NOT NULL,
  PRIMARY KEY (account_id, id),
  KEY saved_views_user_position (account_id, user_id, position)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE saved_views;
