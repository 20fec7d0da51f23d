-- Tables that exist only under Vitess, in the unsharded keyspace `lookup` (vschema.json).
-- The product's own tables come from db/migrations; api_rate_buckets and sign_in_failures
-- are among them and live in this keyspace too.

-- Lookup vindexes: a row per value, naming the shard (keyspace id) of its account.
CREATE TABLE purchase_keyspace_idx (purchase_id BIGINT NOT NULL, keyspace_id VARBINARY(16) NOT NULL, PRIMARY KEY (purchase_id));
CREATE TABLE api_key_hash_idx (key_hash BINARY(32) NOT NULL, keyspace_id VARBINARY(16) NOT NULL, PRIMARY KEY (key_hash));
CREATE TABLE session_token_idx (token_hash BINARY(32) NOT NULL, keyspace_id VARBINARY(16) NOT NULL, PRIMARY KEY (token_hash));
CREATE TABLE user_email_idx (email VARCHAR(255) NOT NULL, keyspace_id VARBINARY(16) NOT NULL, PRIMARY KEY (email));

-- Sequences: ids stay unique across shards, as the API's ids must.
CREATE TABLE accounts_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE api_keys_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE customers_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE email_outbox_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE idempotency_keys_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE line_items_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE products_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE purchase_activity_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE purchases_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE storefronts_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE subscriber_activity_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE subscribers_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE subscriptions_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE transactions_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE users_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE account_activity_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE audit_records_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE user_passkeys_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE notes_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE user_sessions_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE webhook_attempts_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE webhook_deliveries_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
CREATE TABLE webhook_endpoints_seq (id INT NOT NULL, next_id BIGINT, cache BIGINT, PRIMARY KEY (id)) COMMENT 'vitess_sequence';
