-- Closing an account (issue 51, docs/ACCOUNTS.md "Closing your account"). The row stays, since
-- clubs' ratings and leagues name it by id, with its address forgotten (replaced by
-- `closed-{id}@closed.invalid`, which no mail reaches) and the time it was closed.
ALTER TABLE accounts ADD COLUMN closed_at TIMESTAMPTZ;

-- A running game's seat whose player closed their account is written for every player to see:
-- the change 'left', made by the seat's 'player'.
ALTER TABLE seat_changes DROP CONSTRAINT seat_changes_kind_check;
ALTER TABLE seat_changes ADD CONSTRAINT seat_changes_kind_check
    CHECK (kind IN ('address', 'relink', 'handover', 'taken_up', 'released', 'reclaimed', 'left'));
ALTER TABLE seat_changes DROP CONSTRAINT seat_changes_by_kind_check;
ALTER TABLE seat_changes ADD CONSTRAINT seat_changes_by_kind_check
    CHECK (by_kind IN ('organiser', 'club_admin', 'handover', 'previous', 'player'));
