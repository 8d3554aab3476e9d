-- Messages in a game (issue 17): what the players (and, if the creator allowed it, signed-in
-- spectators) say to each other. Messages are not commands: they are not in the command log
-- or its hash chain. `head_seq` is the game's log head when a message was written, so the
-- replay can show it at its step. A hidden message keeps its row, marked with who hid it and
-- when; its text is never shown again.

ALTER TABLE games ADD COLUMN spectators_may_write BOOLEAN NOT NULL DEFAULT false;

-- A seat's wish to be mailed every message as it is written, and the last message mailed to
-- it (a your-turn mail or the digest carries the ones written since).
ALTER TABLE seats ADD COLUMN mail_each_message BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE seats ADD COLUMN messages_mailed_upto BIGINT NOT NULL DEFAULT 0;

CREATE TABLE game_messages (
    id           BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id      BIGINT      NOT NULL REFERENCES games (id),
    -- The author's seat; NULL for a spectator (their account; none for one imported).
    seat         INTEGER,
    account_id   BIGINT      REFERENCES accounts (id),
    author_name  TEXT        NOT NULL,
    body         TEXT        NOT NULL,
    head_seq     BIGINT      NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    hidden_at    TIMESTAMPTZ,
    hidden_by    TEXT,
    CONSTRAINT game_messages_hidden CHECK ((hidden_at IS NULL) = (hidden_by IS NULL)),
    CONSTRAINT game_messages_text CHECK (hidden_at IS NOT NULL OR length(body) > 0)
);
CREATE INDEX game_messages_game ON game_messages (game_id, id);
