-- Trust inside a game (issue 30): an organiser is not a seat, and a seat's keys have one
-- lifetime.

-- A seat without an address is handed over by a one-time link: the first person to open it
-- is given a fresh seat link that only they hold. Its hash is kept after it is used, so a
-- second visitor is told the seat was already taken up (and when).
ALTER TABLE seats ADD COLUMN handover_hash BYTEA UNIQUE;
ALTER TABLE seats ADD COLUMN handover_made_at TIMESTAMPTZ;
ALTER TABLE seats ADD COLUMN taken_up_at TIMESTAMPTZ;

-- A game opened from the lobby has no organiser desk: its players serve themselves. The
-- games that came from the lobby before this lose the desk their creator was mailed.
ALTER TABLE games ADD COLUMN has_desk BOOLEAN NOT NULL DEFAULT true;
UPDATE games SET has_desk = false, organiser_email = NULL
    WHERE id IN (SELECT game_id FROM open_tables WHERE game_id IS NOT NULL);
