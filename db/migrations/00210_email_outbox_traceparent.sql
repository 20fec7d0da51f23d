-- +goose Up
-- The W3C traceparent of the work that queued the e-mail (a request, a job's step), when
-- it was traced: the span that sends the e-mail links to it (docs/OPERATIONS.md#traces).
ALTER TABLE email_outbox ADD COLUMN traceparent VARCHAR(55) CHARACTER SET ascii NULL;

-- +goose Down
ALTER TABLE email_outbox DROP COLUMN traceparent;
