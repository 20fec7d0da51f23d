-- +goose Up
-- The prefix filters' ordered access paths (db/README.md, "Plans"): for each purchase,
-- one row per field (1 buyer_email, 2 buyer_firstname, 3 buyer_lastname) and per prefix
-- length of 1, 2 and 3 characters that the value has, keyed in list order within the
-- account, field, length and prefix. A page of customer_email=se is then the next
-- entries of one range whatever the number of matches; value holds the whole field, so
-- that the filter's own LIKE is checked on each entry (the prefix equality of the
-- collation finds a superset of what LIKE finds) and a longer prefix walks its first
-- three characters' range from this table alone; storefront_id lets a prefix with a
-- storefront (the dashboard's search in one storefront) be read without the rows. Written with the purchase, in the
-- same transaction (import, seed), from its row (mysql.writePrefixes).
CREATE TABLE purchase_prefixes (
  account_id BIGINT NOT NULL,
  field TINYINT NOT NULL,
  prefix_len TINYINT NOT NULL,
  prefix VARCHAR(3) NOT NULL,
  created_at DATETIME NOT NULL,
  purchase_id BIGINT NOT NULL,
  value VARCHAR(255) NOT NULL,
  storefront_id BIGINT NOT NULL,
  PRIMARY KEY (account_id, field, prefix_len, prefix, created_at, purchase_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE purchase_prefixes;
