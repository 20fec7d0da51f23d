-- +goose Up
-- A total comparison (total_op=gt or lt) gets ordered paths of its own: total_band puts
-- each purchase's total in a band of values, by its number of integer digits and its
-- first digit ([1, 2), [2, 3), ..., [9, 10), [10, 20), ..., [90, 100), [100, 200), ...;
-- every total under 1 in band 0), and the index reads one band in list order. A
-- comparison's matches are the bands wholly on its side, each read as an ordered range,
-- and the matches of the band that holds the compared total (db/README.md, "Total
-- bands"). The column is virtual: InnoDB keeps it in the index from the row's total on
-- every write, so no writer has anything more to do.
ALTER TABLE purchases
  ADD COLUMN total_band TINYINT UNSIGNED AS (CASE WHEN total < 1 THEN 0
    ELSE CHAR_LENGTH(FLOOR(total)) * 10 + CAST(LEFT(FLOOR(total), 1) AS UNSIGNED) END) VIRTUAL,
  ADD INDEX purchases_account_band_created (account_id, total_band, created_at, id, total);

-- +goose Down
ALTER TABLE purchases
  DROP INDEX purchases_account_band_created,
  DROP COLUMN total_band;
