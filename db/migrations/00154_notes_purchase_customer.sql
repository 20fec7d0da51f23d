-- +goose Up
-- A purchase's note shows on its buyer's customer page too: its customer_email is the
-- purchase's buyer address, kept equal in the same transaction as the note's insert and
-- every change of the address (an import), so that a customer's notes are the newest
-- entries of one range of notes_customer. A note about a customer has no purchase_id.
UPDATE notes n JOIN purchases p ON p.account_id = n.account_id AND p.id = n.purchase_id
SET n.customer_email = p.buyer_email;

-- +goose Down
UPDATE notes SET customer_email = NULL WHERE purchase_id IS NOT NULL;
