-- +goose Up
-- A customer's figures (the customer page's header, GET /api/v2/customers/{email}): per
-- buyer address within the account, currency and status, how many purchases, the sum
-- of their totals and how many have goods still to ship. The address compares as the
-- customer page compares it: letter case and accents ignored, trailing blanks kept
-- (utf8mb4_unicode_nopad_ci). Written in the same transaction as every change to a
-- purchase's address, currency, status, total or goods to ship (import, seed,
-- reactivation), as purchase_rollups is; `storefront rollups rebuild` rebuilds it.
CREATE TABLE customer_rollups (
  account_id BIGINT NOT NULL,
  email VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_nopad_ci NOT NULL,
  currency CHAR(3) NOT NULL,
  status CHAR(3) NOT NULL,
  purchases BIGINT NOT NULL,
  total DECIMAL(34,4) NOT NULL,
  to_ship BIGINT NOT NULL,
  PRIMARY KEY (account_id, email, currency, status)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE customer_rollups;
