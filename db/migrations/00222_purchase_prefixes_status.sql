-- +goose Up
-- The purchase's status beside each entry of the prefix paths (e-mail, names, initials,
-- domain), so that a prefix with a status checks the status on the entry itself: joining
-- each entry to its purchase's row for it cost as much as the rest of the page
-- (`customer_email=re&status=ACT`, 2.2× the unfiltered first page; ACT has no pairs'
-- rows, pairs.go). Written with the rows, in the same transaction (import, seed), changed
-- with the purchase's status (a reactivation), and rebuilt with them (RebuildDerived).
ALTER TABLE purchase_prefixes ADD COLUMN status CHAR(3) NULL;
-- Each row looks up its purchase by its primary key: linear in the rows
-- (internal/mysql's prefixStatusFill is the same statement).
UPDATE purchase_prefixes x SET x.status = (
  SELECT p.status FROM purchases p WHERE p.account_id = x.account_id AND p.id = x.purchase_id
);

-- +goose Down
ALTER TABLE purchase_prefixes DROP COLUMN status;
