-- +goose Up
-- Background jobs of an account: a bulk reactivation of chosen purchases. The job's
-- purchases are its job_items; a worker of any instance takes one item at a time
-- (SELECT ... FOR UPDATE SKIP LOCKED) and runs it in one transaction with the item's
-- new state, so that a job survives restarts and no purchase is done twice.
CREATE TABLE jobs (
  account_id BIGINT NOT NULL,
  id BIGINT NOT NULL,
  kind VARCHAR(32) NOT NULL,
  status VARCHAR(16) NOT NULL,
  actor VARCHAR(255) NOT NULL,
  refulfill BOOLEAN NOT NULL,
  total INT NOT NULL,
  created_at DATETIME NOT NULL,
  started_at DATETIME NULL,
  finished_at DATETIME NULL,
  PRIMARY KEY (account_id, id),
  KEY jobs_status (account_id, status, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE jobs;
