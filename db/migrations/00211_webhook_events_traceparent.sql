-- +goose Up
-- The W3C traceparent of the work that wrote the event, when it was traced: each
-- delivery's span links to it, and the delivery sends its own span as the traceparent
-- header (docs/OPERATIONS.md#traces).
ALTER TABLE webhook_events ADD COLUMN traceparent VARCHAR(55) CHARACTER SET ascii NULL;

-- +goose Down
ALTER TABLE webhook_events DROP COLUMN traceparent;
