-- +goose Up
-- Each purchase as the API answers it (GET /api/v2/purchases/{id}), written in the
-- same transaction as every change to the purchase or its collections, so that a list
-- page is a primary-key read of stored bytes. Filled for existing purchases by
-- `storefront migrate` (mysql.DB.BackfillDocuments), which builds them in Go.
CREATE TABLE purchase_documents (
  account_id BIGINT NOT NULL,
  purchase_id BIGINT NOT NULL,
  document MEDIUMBLOB NOT NULL,
  PRIMARY KEY (account_id, purchase_id)
) ENGINE=InnoDB;

-- +goose Down
DROP TABLE purchase_documents;
