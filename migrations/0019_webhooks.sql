-- Chat notifications (issue 33, docs/WEBHOOKS.md): an account's webhooks, and the outbox rows
-- that deliver to them. A row names its webhook by id, never by URL; removing a webhook drops
-- its deliveries not yet made (and the record of past ones).

CREATE TABLE webhooks (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id  BIGINT      NOT NULL REFERENCES accounts (id),
    kind        TEXT        NOT NULL CHECK (kind IN ('discord', 'slack', 'generic')),
    -- A secret: shown whole to no one after it is saved (pages show its host and last four
    -- characters), never logged.
    url         TEXT        NOT NULL,
    -- The HMAC-SHA256 key of a generic webhook, shown once when it is made.
    secret      TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK ((kind = 'generic') = (secret IS NOT NULL))
);
CREATE INDEX webhooks_account ON webhooks (account_id);

ALTER TABLE outbox ADD COLUMN webhook_id BIGINT REFERENCES webhooks (id) ON DELETE CASCADE;
CREATE INDEX outbox_webhook ON outbox (webhook_id, id) WHERE webhook_id IS NOT NULL;
