-- +goose Up
-- The domain's ordered path (a search's domain:, db/README.md "Plans"): purchase_prefixes
-- gets one row per purchase whose e-mail has an "@" (field 5, prefix_len 0), its prefix
-- the e-mail's domain, up to 63 characters of it. Widening the prefix from 3 characters
-- to 63 keeps its one length byte (utf8mb4: at most 252 bytes), so InnoDB changes the
-- column in place without copying the table. 00131 writes the rows of existing purchases.
ALTER TABLE purchase_prefixes MODIFY prefix VARCHAR(63) NOT NULL;

-- +goose Down
ALTER TABLE purchase_prefixes MODIFY prefix VARCHAR(3) NOT NULL;
