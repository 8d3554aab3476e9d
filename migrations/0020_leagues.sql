-- Leagues (issue 33, item 6): a club's round robin for one game, its entrants, and the games
-- its schedule lays out. The schedule itself is computed by `leagues::schedule` from the
-- entrants in sign-up order when sign-up closes, and kept here game by game, so a sequential
-- league starts each round's games when the round before it has ended.

CREATE TABLE leagues (
    id                BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    club_id           BIGINT      NOT NULL REFERENCES clubs (id),
    name              TEXT        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    kind              TEXT        NOT NULL,
    -- The game's options, as a new game of `kind` takes them.
    options           JSONB       NOT NULL,
    -- The time control and the other settings a club table's game takes (the lobby's shape).
    settings          JSONB       NOT NULL,
    meetings          TEXT        NOT NULL CHECK (meetings IN ('once', 'twice')),
    mode              TEXT        NOT NULL CHECK (mode IN ('sequential', 'all_at_once')),
    -- A member who lost on time this many times in the club's last finished league is refused
    -- entry; NULL: nobody is refused.
    timeout_limit     INT         CHECK (timeout_limit BETWEEN 1 AND 100),
    signup_closes_at  TIMESTAMPTZ NOT NULL,
    created_by        BIGINT      NOT NULL REFERENCES accounts (id),
    created_at        TIMESTAMPTZ NOT NULL,
    -- 'signup' until sign-up closes; 'running' with its schedule laid out; 'finished' when
    -- every game has ended; 'cancelled' when too few signed up or an admin cancelled it.
    status            TEXT        NOT NULL DEFAULT 'signup'
                                  CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
    started_at        TIMESTAMPTZ,
    ended_at          TIMESTAMPTZ
);
CREATE INDEX leagues_club ON leagues (club_id, id);
-- The scheduler finds leagues whose sign-up has closed.
CREATE INDEX leagues_due ON leagues (signup_closes_at) WHERE status = 'signup';

-- Who entered a league. `position` is the sign-up order (the schedule's entrant order and the
-- table's last tie-break). A member who leaves the club (or is removed) mid-league keeps the
-- row with `left_at` set: their remaining games are forfeited.
CREATE TABLE league_entrants (
    league_id    BIGINT      NOT NULL REFERENCES leagues (id),
    account_id   BIGINT      NOT NULL REFERENCES accounts (id),
    position     INT         NOT NULL,
    signed_up_at TIMESTAMPTZ NOT NULL,
    left_at      TIMESTAMPTZ,
    PRIMARY KEY (league_id, account_id),
    UNIQUE (league_id, position)
);
CREATE INDEX league_entrants_account ON league_entrants (account_id);

-- One game of a league's schedule: its round and the entrants by seat. `game_id` is set when
-- the game is started (all at once: when sign-up closes; sequential: when its round opens).
CREATE TABLE league_games (
    league_id  BIGINT   NOT NULL REFERENCES leagues (id),
    round      INT      NOT NULL CHECK (round >= 0),
    number     INT      NOT NULL CHECK (number >= 0),
    -- Entrants' account ids, seat 0 first.
    seats      BIGINT[] NOT NULL,
    game_id    BIGINT   UNIQUE REFERENCES games (id),
    PRIMARY KEY (league_id, number)
);
CREATE INDEX league_games_unstarted ON league_games (league_id, round) WHERE game_id IS NULL;

-- A game's league, for the archive's filter and the league's table.
ALTER TABLE games ADD COLUMN league_id BIGINT REFERENCES leagues (id);
CREATE INDEX games_league ON games (league_id, id) WHERE league_id IS NOT NULL;
