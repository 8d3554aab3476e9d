-- Games, seats, and the append-only command log (DESIGN.md "The log").

CREATE TABLE games (
    id                    BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind                  TEXT        NOT NULL,
    rules_version         INTEGER     NOT NULL,
    options               JSONB       NOT NULL,
    seat_count            INTEGER     NOT NULL,
    seed                  BYTEA       NOT NULL CHECK (length(seed) = 32),
    commitment            TEXT        NOT NULL,
    organiser_token_hash  BYTEA       NOT NULL UNIQUE,
    status                TEXT        NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'over')),
    head_seq              BIGINT      NOT NULL DEFAULT 0,
    head_hash             TEXT        NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at            TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE seats (
    game_id     BIGINT  NOT NULL REFERENCES games (id),
    seat        INTEGER NOT NULL,
    name        TEXT    NOT NULL,
    email       TEXT,
    token_hash  BYTEA   NOT NULL UNIQUE,
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE commands (
    game_id     BIGINT      NOT NULL REFERENCES games (id),
    seq         BIGINT      NOT NULL CHECK (seq >= 1),
    seat        INTEGER     NOT NULL,
    command     JSONB       NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    hash        TEXT        NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE FUNCTION commands_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the command log is append-only: % refused', TG_OP;
END;
$$;

CREATE TRIGGER commands_append_only
    BEFORE UPDATE OR DELETE ON commands
    FOR EACH ROW EXECUTE FUNCTION commands_are_append_only();

CREATE TRIGGER commands_no_truncate
    BEFORE TRUNCATE ON commands
    FOR EACH STATEMENT EXECUTE FUNCTION commands_are_append_only();

-- Server-wide secrets shared by every web process (CSRF tokens).
CREATE TABLE settings (
    key    TEXT PRIMARY KEY,
    value  BYTEA NOT NULL
);
