-- A reply over an hourly bound is held, never dropped (issue 48): it is marked counted at the
-- time it will be played (the first moment the bound lets it through, after the replies
-- already held), the person is told that time once, and the clock's scheduler plays it then
-- through the same path as a live reply.
ALTER TABLE inbound_mail DROP CONSTRAINT inbound_mail_status_check;
ALTER TABLE inbound_mail ADD CONSTRAINT inbound_mail_status_check
    CHECK (status IN ('received', 'held', 'done', 'refused', 'ignored'));
CREATE INDEX inbound_mail_held ON inbound_mail (counted_at, id) WHERE status = 'held';
