-- Fewer mails, nothing lost (docs/MAIL.md, "Answers folded into the next mail"): the answer
-- to a reply that was played, when the seat has nothing new to decide, waits in the outbox
-- (`fold`, due after the wait) and goes out inside the seat's next mail of the game; a row
-- taken into another mail ends `folded`. A seat may ask for every answer on its own.
ALTER TABLE outbox ADD COLUMN fold BOOLEAN NOT NULL DEFAULT false;
-- The mail that carried a folded answer.
ALTER TABLE outbox ADD COLUMN folded_into BIGINT;
ALTER TABLE outbox DROP CONSTRAINT outbox_status_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_status_check
    CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'folded'));
CREATE INDEX outbox_folding ON outbox (game_id, seat) WHERE fold AND status = 'pending';
ALTER TABLE seats ADD COLUMN mail_every_answer BOOLEAN NOT NULL DEFAULT false;
