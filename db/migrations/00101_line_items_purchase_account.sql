-- +goose Up
-- The account beside the purchase in the line items' purchase index, so that the
-- export finds where a batch's line items lie in the primary key (the least and the
-- greatest id, and how many) from this index alone, while the statement names the
-- account as every statement does; it then reads them as one range of the primary key
-- instead of one lookup per line item (docs/PERFORMANCE.md, "CSV export"). The index
-- keeps serving the foreign key to purchases and the pages' collections.
ALTER TABLE line_items
  DROP INDEX line_items_purchase,
  ADD INDEX line_items_purchase (purchase_id, account_id, id);

-- +goose Down
ALTER TABLE line_items
  DROP INDEX line_items_purchase,
  ADD INDEX line_items_purchase (purchase_id, id);
