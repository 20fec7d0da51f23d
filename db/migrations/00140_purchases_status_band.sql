-- +goose Up
-- A total comparison with one status (status=RFD&total=500&total_op=gt) reads the total
-- bands of that status (db/README.md, "Total bands"): one ordered range per band on the
-- comparison's side within the status, as 00102's index gives them within the account.
-- Walking the status in list order and checking the total passed over 100 ÷ (the share
-- of the status's purchases that match) entries, each a row read; sorting the
-- comparison's matches read every one of them, each a row read for its status.
ALTER TABLE purchases ADD INDEX purchases_account_status_band_created (account_id, status, total_band, created_at, id, total);

-- +goose Down
ALTER TABLE purchases DROP INDEX purchases_account_status_band_created;
