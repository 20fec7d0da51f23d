-- +goose Up
-- One purchase of a job: pending until a worker has run it, then done, skipped (its
-- status forbids it) or failed, with the reason people read on the Jobs page.
CREATE TABLE job_items (
  account_id BIGINT NOT NULL,
  job_id BIGINT NOT NULL,
  purchase_id BIGINT NOT NULL,
  status VARCHAR(16) NOT NULL,
  reason VARCHAR(512) NULL,
  finished_at DATETIME NULL,
  PRIMARY KEY (account_id, job_id, purchase_id),
  KEY job_items_status (account_id, job_id, status, purchase_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE job_items;
