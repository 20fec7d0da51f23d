-- +goose Up
-- Whether a queued e-mail waits because the mail server could not be reached at its
-- last attempt (rather than because the server refused it): such e-mails are retried
-- at once by whichever sender next delivers a message (internal/mail).
ALTER TABLE email_outbox ADD COLUMN server_unreachable BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE email_outbox DROP COLUMN server_unreachable;
