-- Email (issue 4): the transactional outbox, per-seat mail preferences, the organiser's
-- address, and the extra private links minted for notices.

ALTER TABLE games ADD COLUMN organiser_email TEXT;

ALTER TABLE seats ADD COLUMN mail_pref TEXT NOT NULL DEFAULT 'every'
    CHECK (mail_pref IN ('every', 'digest', 'off'));

-- Every notice carries a private link of its own; only its hash is kept, as for the seat's
-- own token. The raw token lives in the pending outbox row until the message is sent.
CREATE TABLE seat_links (
    token_hash  BYTEA       PRIMARY KEY,
    game_id     BIGINT      NOT NULL,
    seat        INTEGER     NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    FOREIGN KEY (game_id, seat) REFERENCES seats (game_id, seat)
);
CREATE INDEX seat_links_seat ON seat_links (game_id, seat);

-- One row per message to send, written in the transaction of the command that causes it.
-- `event` names what happened ("invite", "turn:17", "over", "undeliverable:5"): one message
-- per event and recipient, whatever is retried.
CREATE TABLE outbox (
    id              BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id         BIGINT      NOT NULL REFERENCES games (id),
    seat            INTEGER,
    event           TEXT        NOT NULL,
    kind            TEXT        NOT NULL,
    recipient       TEXT        NOT NULL,
    recipient_name  TEXT        NOT NULL,
    payload         JSONB       NOT NULL,
    digest          BOOLEAN     NOT NULL DEFAULT false,
    status          TEXT        NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
    attempts        INTEGER     NOT NULL DEFAULT 0,
    -- pending: when to try; sending: when the claim lapses and another worker may take it.
    due_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_error      TEXT,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    sent_at         TIMESTAMPTZ,
    UNIQUE (game_id, event, recipient)
);
CREATE INDEX outbox_due ON outbox (due_at) WHERE status IN ('pending', 'sending');
CREATE INDEX outbox_game ON outbox (game_id);
