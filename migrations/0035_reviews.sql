-- A review after every finished game (issue 49, docs/BOTS.md "Review"): for each seat, the
-- moves where its estimated result dropped most, worked out in the background by a search from
-- the seat's own view at the time. One row a game, written in the transaction of its last
-- entry ('pending'); a worker claims it with FOR UPDATE SKIP LOCKED and a lease, and stores the
-- review as JSON ('done'), or why it could not be made ('failed').
CREATE TABLE reviews (
    game_id     BIGINT      PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    status      TEXT        NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'done', 'failed')),
    lease_until TIMESTAMPTZ,
    body        JSONB,
    error       TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    done_at     TIMESTAMPTZ
);
CREATE INDEX reviews_pending ON reviews (created_at) WHERE status = 'pending';
