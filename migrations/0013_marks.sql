-- Who made an entry when not its seat by its own hand (issue 31): one mark instead of a flag
-- per author. The column is `made_by` because BY is a reserved word of SQL; it holds what the
-- record's `by` says. Entries already written keep their hashes: the mark they carried in the
-- chain ("clock", "organiser") is the one the column now holds.
ALTER TABLE commands ADD COLUMN made_by TEXT
    CHECK (made_by IN ('clock', 'organiser', 'auto', 'standing'));
UPDATE commands SET made_by = 'clock' WHERE by_clock;
UPDATE commands SET made_by = 'organiser' WHERE by_organiser;
ALTER TABLE commands DROP CONSTRAINT commands_one_author;
ALTER TABLE commands DROP COLUMN by_clock;
ALTER TABLE commands DROP COLUMN by_organiser;

-- "Play my forced moves": a seat's own choice (NULL: its account's default, else off), and the
-- account-wide default.
ALTER TABLE seats ADD COLUMN play_forced BOOLEAN;
ALTER TABLE accounts ADD COLUMN play_forced BOOLEAN NOT NULL DEFAULT false;

-- A seat's standing orders: decisions settled ahead, each one of the few its game defines.
CREATE TABLE standing_orders (
    game_id    BIGINT      NOT NULL REFERENCES games (id),
    seat       INT         NOT NULL,
    order_id   TEXT        NOT NULL,
    made_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seat, order_id)
);
