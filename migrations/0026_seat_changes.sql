-- Seats change hands in the open (issue 45; DESIGN.md "Seats change hands in the open"). Every
-- change of who holds a seat — a new address, a relink, a renewed handover, a handover taken
-- up, a released claim, a reclaim — is a row here, shown to every player of the game with who
-- did it and when. The address the seat was taken from is told at once by mail, with a link
-- (stored hashed) that lets it write to the other players and, for an address change, take the
-- seat back within a day.
CREATE TABLE seat_changes (
    id               BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id          BIGINT      NOT NULL REFERENCES games (id),
    seat             INTEGER     NOT NULL,
    kind             TEXT        NOT NULL
        CHECK (kind IN ('address', 'relink', 'handover', 'taken_up', 'released', 'reclaimed')),
    -- Who did it: the organiser, a club's admin (by name), whoever opened the handover link,
    -- the seat's previous address.
    by_kind          TEXT        NOT NULL
        CHECK (by_kind IN ('organiser', 'club_admin', 'handover', 'previous')),
    by_name          TEXT,
    at               TIMESTAMPTZ NOT NULL,
    -- The address the seat was taken from (its own, or its owner's account's): told by mail,
    -- never shown on a page.
    previous_email   TEXT,
    -- The previous address's link to this change, while it lasts.
    token_hash       BYTEA       UNIQUE,
    token_until      TIMESTAMPTZ,
    -- Until when that link may take the seat back (an address change only).
    reclaim_until    TIMESTAMPTZ,
    reclaimed_at     TIMESTAMPTZ,
    -- Messages written to the other players with that link (bounded).
    messages_written INTEGER     NOT NULL DEFAULT 0,
    CONSTRAINT seat_changes_by_name CHECK ((by_kind = 'club_admin') = (by_name IS NOT NULL))
);
CREATE INDEX seat_changes_game ON seat_changes (game_id, id);

-- A message written by a seat's previous address through that link: no seat, no account.
ALTER TABLE game_messages ADD COLUMN former_seat INTEGER;
