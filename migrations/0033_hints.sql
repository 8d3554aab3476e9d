-- Hints asked in practice games ("what would the bot do?", docs/BOTS.md "Hints"): one row a
-- hint given, so the bound on hints a seat an hour holds across processes (docs/LIMITS.md).
-- A refused request writes nothing.
CREATE TABLE hints (
    id       BIGSERIAL   PRIMARY KEY,
    game_id  BIGINT      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat     INT         NOT NULL,
    asked_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX hints_seat ON hints (game_id, seat, asked_at);
