-- The correspondence clock (issue 15): each game's time control, each seat's clock, moves the
-- clock played, vacations, and the organiser's clock actions.

-- The time control chosen at creation (clock::ClockSettings as JSON); games made before the
-- clock have none, with the safety deadline.
ALTER TABLE games ADD COLUMN clock JSONB NOT NULL
    DEFAULT '{"control": {"kind": "none", "safety_days": 21}}';
-- Set while the organiser has paused the game.
ALTER TABLE games ADD COLUMN paused_at TIMESTAMPTZ;

-- A command the clock played (the seat's time ran out): `"by": "clock"` in the hash chain.
ALTER TABLE commands ADD COLUMN by_clock BOOLEAN NOT NULL DEFAULT false;

-- One row per seat of a game with a clock. Times are clock time: with the weekend pause,
-- weekend hours do not count.
CREATE TABLE seat_clocks (
    game_id         BIGINT      NOT NULL,
    seat            INTEGER     NOT NULL,
    -- Fischer: the bank the seat has at the start of its next wait.
    bank_secs       BIGINT      NOT NULL,
    -- The current wait (NULL when the seat is not awaited): the position it is for, when it
    -- began, the clock time it has in all, the time spent in earlier stretches (before a
    -- pause or a vacation), and when the running stretch began (NULL while suspended).
    awaited_seq     BIGINT,
    waiting_since   TIMESTAMPTZ,
    allowance_secs  BIGINT,
    spent_secs      BIGINT      NOT NULL DEFAULT 0,
    stretch_start   TIMESTAMPTZ,
    -- When the wait runs out; NULL when not awaited or suspended.
    due_at          TIMESTAMPTZ,
    -- The next reminder, and how many this wait has had (at most two).
    remind_at       TIMESTAMPTZ,
    reminders       INTEGER     NOT NULL DEFAULT 0,
    -- A scheduler working on this deadline holds it until then.
    lease_until     TIMESTAMPTZ,
    PRIMARY KEY (game_id, seat),
    FOREIGN KEY (game_id, seat) REFERENCES seats (game_id, seat)
);
CREATE INDEX seat_clocks_due ON seat_clocks (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX seat_clocks_remind ON seat_clocks (remind_at) WHERE remind_at IS NOT NULL;

-- Vacations, by address: while one runs, every clock of every seat with that address stops.
CREATE TABLE vacations (
    email       TEXT        NOT NULL,
    started_at  TIMESTAMPTZ NOT NULL,
    ends_at     TIMESTAMPTZ NOT NULL,
    ended_at    TIMESTAMPTZ,
    PRIMARY KEY (email, started_at)
);
CREATE INDEX vacations_running ON vacations (email) WHERE ended_at IS NULL;

-- What the organiser did to the clock (extend, pause, resume), and what the clock did.
CREATE TABLE clock_events (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id     BIGINT      NOT NULL REFERENCES games (id),
    at          TIMESTAMPTZ NOT NULL,
    what        TEXT        NOT NULL
);
CREATE INDEX clock_events_game ON clock_events (game_id);
