-- +goose Up
UPDATE purchase_activity a JOIN purchases p ON p.account_id = a.account_id AND p.id = a.purchase_id
SET a.buyer_email = p.buyer_email;

-- +goose Down
UPDATE purchase_activity SET buyer_email = NULL;
