-- +goose Up
-- An e-mail is queued as what it is about (kind, the purchase, the facts it needs as
-- JSON) and internal/mail writes its subject and body when it sends it; the subject
-- sent is recorded with the delivery, for the purchase's timeline. Rows queued before
-- keep their text and are sent as they are (kind 'composed').
ALTER TABLE email_outbox
  ADD COLUMN kind VARCHAR(32) NOT NULL DEFAULT 'composed' AFTER purchase_id,
  ADD COLUMN facts TEXT NULL AFTER kind,
  MODIFY subject VARCHAR(255) NULL,
  MODIFY body MEDIUMTEXT NULL;

-- +goose Down
-- 00100's down has given every row a subject and a body.
ALTER TABLE email_outbox
  DROP COLUMN facts,
  DROP COLUMN kind,
  MODIFY subject VARCHAR(255) NOT NULL,
  MODIFY body MEDIUMTEXT NOT NULL;
