-- +goose Up
-- The subscription's status on its subscriber's row, kept by the writers of
-- subscriptions in the same transaction (syncSubscriberStatuses, beside the service
-- terms), and the lists' paths of one status in list order: for every storefront's
-- subscribers and for one storefront's. Without them a status that few subscribers have
-- (PAST_DUE) walked every subscriber of the account for a page and for its count.
ALTER TABLE subscribers ADD COLUMN status VARCHAR(16) NULL,
  ADD INDEX subscribers_account_status (account_id, status, created_at, id, storefront_id),
  ADD INDEX subscribers_storefront_status (storefront_id, status, created_at, id);
UPDATE subscribers sb JOIN subscriptions ss ON ss.account_id = sb.account_id AND ss.subscriber_id = sb.id
  SET sb.status = ss.status;

-- +goose Down
ALTER TABLE subscribers DROP INDEX subscribers_account_status, DROP INDEX subscribers_storefront_status,
  DROP COLUMN status;
