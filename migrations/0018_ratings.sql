-- Ratings (issue 33): a member's Weng-Lin (OpenSkill) rating in a club, for one game, updated
-- in the transaction of a rated club game's last entry (docs/RATINGS.md says which games are
-- rated and how a game's end becomes a ranking).

-- Per club, game kind and account: the rating (mu, sigma, and the number shown: a
-- conservative estimate, 1000 + 40 * (mu - 3 sigma)), the rated games and their results, and
-- the moves of those games made before their deadline against all of them.
CREATE TABLE club_ratings (
    club_id        BIGINT           NOT NULL REFERENCES clubs (id),
    kind           TEXT             NOT NULL,
    account_id     BIGINT           NOT NULL REFERENCES accounts (id),
    mu             DOUBLE PRECISION NOT NULL,
    sigma          DOUBLE PRECISION NOT NULL CHECK (sigma > 0),
    rating         INTEGER          NOT NULL,
    games          INTEGER          NOT NULL DEFAULT 0 CHECK (games >= 0),
    wins           INTEGER          NOT NULL DEFAULT 0 CHECK (wins >= 0),
    losses         INTEGER          NOT NULL DEFAULT 0 CHECK (losses >= 0),
    draws          INTEGER          NOT NULL DEFAULT 0 CHECK (draws >= 0),
    moves_on_time  BIGINT           NOT NULL DEFAULT 0 CHECK (moves_on_time >= 0),
    moves          BIGINT           NOT NULL DEFAULT 0 CHECK (moves >= moves_on_time),
    updated_at     TIMESTAMPTZ      NOT NULL,
    PRIMARY KEY (club_id, kind, account_id),
    CHECK (wins + losses + draws = games)
);
-- A club's standings for a game, best first.
CREATE INDEX club_ratings_standings ON club_ratings (club_id, kind, rating DESC, mu DESC, account_id);

-- Each rated game's change of each player's rating, for the rating-history chart. One row per
-- game and account: a game is rated once, and an account holding two seats is never rated.
CREATE TABLE rating_changes (
    game_id        BIGINT           NOT NULL REFERENCES games (id),
    account_id     BIGINT           NOT NULL REFERENCES accounts (id),
    club_id        BIGINT           NOT NULL REFERENCES clubs (id),
    kind           TEXT             NOT NULL,
    seat           INTEGER          NOT NULL,
    -- The place of the seat's side, from 1 (sides that tie share it).
    place          INTEGER          NOT NULL CHECK (place >= 1),
    result         TEXT             NOT NULL CHECK (result IN ('win', 'loss', 'draw')),
    mu_before      DOUBLE PRECISION NOT NULL,
    sigma_before   DOUBLE PRECISION NOT NULL,
    rating_before  INTEGER          NOT NULL,
    mu_after       DOUBLE PRECISION NOT NULL,
    sigma_after    DOUBLE PRECISION NOT NULL,
    rating_after   INTEGER          NOT NULL,
    -- This game's moves of the seat: before their deadline, and all (a timeout counts against).
    moves_on_time  BIGINT           NOT NULL CHECK (moves_on_time >= 0),
    moves          BIGINT           NOT NULL CHECK (moves >= moves_on_time),
    rated_at       TIMESTAMPTZ      NOT NULL,
    PRIMARY KEY (game_id, account_id)
);
CREATE INDEX rating_changes_member ON rating_changes (club_id, kind, account_id, rated_at, game_id);
