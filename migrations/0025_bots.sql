-- Practice bots in seats (issue 35). A bot's seat says its level and keeps the bot's own seed,
-- drawn afresh when the game is made (never derived from the game's seed, which would let the
-- bot know the deck). Nobody holds a bot's seat: its token is random and never shown.
ALTER TABLE seats ADD COLUMN bot TEXT CHECK (bot IN ('random', 'easy', 'medium', 'hard'));
ALTER TABLE seats ADD COLUMN bot_seed BYTEA;
ALTER TABLE seats ADD CONSTRAINT seats_bot_has_seed
    CHECK ((bot IS NULL) = (bot_seed IS NULL) AND (bot IS NULL OR email IS NULL));

ALTER TABLE commands DROP CONSTRAINT commands_made_by_check;
ALTER TABLE commands ADD CONSTRAINT commands_made_by_check
    CHECK (made_by IN ('clock', 'organiser', 'auto', 'standing', 'undo', 'bot'));

-- The bots' work list: one row per running game with a bot seat. A bot worker (in `serve` and
-- `worker`) claims a game whose head moved past `seen_seq` with FOR UPDATE SKIP LOCKED and a
-- lease, plays every bot the game awaits, and writes down the head it left the game at.
CREATE TABLE bot_games (
    game_id      BIGINT      PRIMARY KEY REFERENCES games (id),
    seen_seq     BIGINT      NOT NULL DEFAULT -1,
    lease_until  TIMESTAMPTZ,
    -- A game whose bot failed (a rules bug): tried again after this, not in a loop.
    retry_at     TIMESTAMPTZ,
    failures     INT         NOT NULL DEFAULT 0
);

-- A lobby table's creator may put bots at it: a bot's place is taken from the start.
ALTER TABLE table_seats ADD COLUMN bot TEXT CHECK (bot IN ('random', 'easy', 'medium', 'hard'));
ALTER TABLE table_seats DROP CONSTRAINT table_seats_check;
ALTER TABLE table_seats ADD CONSTRAINT table_seats_check
    CHECK (account_id IS NOT NULL OR invited_email IS NOT NULL OR bot IS NOT NULL);
