-- Accounts (issue 17): a person is an email address with a display name, a time zone and a
-- mail preference for all their seats. Sessions are kept here so any web process can read
-- them; only the hash of a session's cookie is stored, as for seat links.

CREATE TABLE accounts (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email       TEXT        NOT NULL,
    name        TEXT        NOT NULL,
    time_zone   TEXT        NOT NULL DEFAULT 'UTC',
    mail_pref   TEXT        NOT NULL DEFAULT 'every' CHECK (mail_pref IN ('every', 'digest', 'off')),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));

CREATE TABLE sessions (
    token_hash  BYTEA       PRIMARY KEY,
    account_id  BIGINT      NOT NULL REFERENCES accounts (id),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);

-- A seat belongs to the account whose address it was given, or that claimed its link.
ALTER TABLE seats ADD COLUMN account_id BIGINT REFERENCES accounts (id);
CREATE INDEX seats_account ON seats (account_id);
CREATE INDEX seats_email ON seats (lower(email));

-- Mail about an account (a sign-in link) or a table still filling belongs to no game.
ALTER TABLE outbox ALTER COLUMN game_id DROP NOT NULL;
