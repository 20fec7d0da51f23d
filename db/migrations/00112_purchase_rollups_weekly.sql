-- +goose Up
-- purchase_rollups summed over seven days: week is the first of them, and every day
-- begins a week (a day's purchases count in the seven weeks that begin on it and on the
-- six days before it). Kept with it in the same transactions: the overview's chart of a
-- long range has a bar per seven days from the range's first day, whichever day that
-- is, and reads each as one row per storefront, currency and status here instead of
-- seven from purchase_rollups.
CREATE TABLE purchase_rollups_weekly (
  account_id BIGINT NOT NULL,
  week DATE NOT NULL,
  storefront_id BIGINT NOT NULL,
  currency CHAR(3) NOT NULL,
  status CHAR(3) NOT NULL,
  purchases BIGINT NOT NULL,
  total DECIMAL(34,4) NOT NULL,
  PRIMARY KEY (account_id, week, storefront_id, currency, status)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE purchase_rollups_weekly;
