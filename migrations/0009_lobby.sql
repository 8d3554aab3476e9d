-- Open tables (issue 17): a game still looking for players. Until its last seat is taken it is
-- no game at all (no seed, no commitment, no row in games); the join that fills it creates the
-- game in the same transaction and records it here.

CREATE TABLE open_tables (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        TEXT        NOT NULL,
    options     JSONB       NOT NULL,
    settings    JSONB       NOT NULL,
    seat_count  INT         NOT NULL CHECK (seat_count BETWEEN 1 AND 16),
    seating     TEXT        NOT NULL CHECK (seating IN ('random', 'placed')),
    creator_id  BIGINT      NOT NULL REFERENCES accounts (id),
    status      TEXT        NOT NULL DEFAULT 'open'
                            CHECK (status IN ('open', 'started', 'expired', 'cancelled')),
    game_id     BIGINT      REFERENCES games (id),
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    ended_at    TIMESTAMPTZ
);
-- The lobby lists open tables, oldest first; the scheduler finds the ones past their time.
CREATE INDEX open_tables_lobby ON open_tables (created_at, id) WHERE status = 'open';
CREATE INDEX open_tables_due ON open_tables (expires_at) WHERE status = 'open';
CREATE INDEX open_tables_creator ON open_tables (creator_id) WHERE status = 'open';

-- A taken or held place at a table: an account's, or held for an invited address until the
-- invitation is accepted (then the account's) or withdrawn (then the row is gone).
CREATE TABLE table_seats (
    table_id          BIGINT      NOT NULL REFERENCES open_tables (id),
    position          INT         NOT NULL,
    account_id        BIGINT      REFERENCES accounts (id),
    invited_email     TEXT,
    invite_token_hash BYTEA       UNIQUE,
    joined_at         TIMESTAMPTZ NOT NULL,
    -- The seat in the started game (drawn at random or as placed).
    game_seat         INT,
    PRIMARY KEY (table_id, position),
    UNIQUE (table_id, account_id),
    CHECK (account_id IS NOT NULL OR invited_email IS NOT NULL)
);
CREATE INDEX table_seats_account ON table_seats (account_id);
CREATE UNIQUE INDEX table_seats_invited ON table_seats (table_id, lower(invited_email))
    WHERE account_id IS NULL;
