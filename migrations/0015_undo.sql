-- Undo within one's turn (issue 32): an entry of its own, marked 'undo', whose command is
-- {"type":"undo"}. It takes back the seat's last command; both stay in the hash chain.
ALTER TABLE commands DROP CONSTRAINT commands_made_by_check;
ALTER TABLE commands ADD CONSTRAINT commands_made_by_check
    CHECK (made_by IN ('clock', 'organiser', 'auto', 'standing', 'undo'));
