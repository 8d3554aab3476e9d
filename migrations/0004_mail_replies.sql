-- Moves by replying to the mail (issue 18): reply addresses bound to a seat and a position,
-- every inbound message kept with its outcome, and the organiser's leave for other senders.

-- A your-turn mail's Reply-To carries a secret as strong as a seat link; only its hash is kept.
-- `seq` is the position the mail was about; `choices` the seat's choices there (JSON), so a
-- reply is read against what the player saw even after the game moved on.
CREATE TABLE reply_addresses (
    token_hash  BYTEA       PRIMARY KEY,
    game_id     BIGINT      NOT NULL,
    seat        INTEGER     NOT NULL,
    seq         BIGINT      NOT NULL,
    choices     JSONB       NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    FOREIGN KEY (game_id, seat) REFERENCES seats (game_id, seat)
);
CREATE INDEX reply_addresses_seat ON reply_addresses (game_id, seat);

-- Every message handed to us, stored (size-capped, secrets cut out) before it is acted on.
-- `message_key` is the Message-ID, or a digest of the bytes when there is none: a message
-- delivered twice acts once.
CREATE TABLE inbound_mail (
    id             BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_key    TEXT        NOT NULL UNIQUE,
    size           INTEGER     NOT NULL,
    raw            BYTEA       NOT NULL,
    -- The hash of the reply address's secret (the raw keeps no secret), to resume after a stop.
    reply_hash     BYTEA,
    game_id        BIGINT,
    seat           INTEGER,
    status         TEXT        NOT NULL DEFAULT 'received'
                   CHECK (status IN ('received', 'done', 'refused', 'ignored')),
    outcome        TEXT,
    seq            BIGINT,
    claimed_until  TIMESTAMPTZ,
    received_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    decided_at     TIMESTAMPTZ
);
CREATE INDEX inbound_mail_open ON inbound_mail (received_at) WHERE status = 'received';

ALTER TABLE games ADD COLUMN mail_any_sender BOOLEAN NOT NULL DEFAULT false;
