-- Fair deals (issue 50, docs/FAIRNESS.md): seeds drawn ahead of time in batches, each batch
-- committed by a Merkle root published on /fairness before any game takes a seed from it.
-- Games take the next index in order (next_index), so a skipped seed is a visible gap.
CREATE TABLE seed_batches (
    id           BIGSERIAL   PRIMARY KEY,
    root         TEXT        NOT NULL UNIQUE,
    size         INT         NOT NULL,
    next_index   INT         NOT NULL DEFAULT 0,
    published_at TIMESTAMPTZ NOT NULL,
    CHECK (next_index <= size)
);

-- The batch's seeds: secret, each revealed only in the record of its game once it is over.
CREATE TABLE batch_seeds (
    batch_id BIGINT NOT NULL REFERENCES seed_batches (id),
    idx      INT    NOT NULL,
    seed     BYTEA  NOT NULL,
    PRIMARY KEY (batch_id, idx)
);

-- Where a game's deal came from: NULL for games made before, or with a chosen seed.
ALTER TABLE games ADD COLUMN deal_batch BIGINT REFERENCES seed_batches (id);
ALTER TABLE games ADD COLUMN deal_index INT;
ALTER TABLE games ADD COLUMN deal_contributions JSONB;
CREATE UNIQUE INDEX games_deal ON games (deal_batch, deal_index);

-- What a player joining a lobby table contributed to the deal (their browser's random bytes,
-- or words they typed); mixed into the game's seed when the table starts.
ALTER TABLE table_seats ADD COLUMN contribution TEXT;
