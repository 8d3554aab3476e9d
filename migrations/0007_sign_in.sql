-- Sign-in by mailed link, personal API tokens, links to a seat opened from "my games", and a
-- finished game's result kept in words (issue 17).

-- A sign-in link: single use, valid 15 minutes, bound to the address it was mailed to. Only
-- the hash of the token is kept. Rows are also the per-address rate limit's count, so every
-- web process agrees; rows older than a day are deleted when a new link is made.
CREATE TABLE sign_in_links (
    token_hash  BYTEA       PRIMARY KEY,
    email       TEXT        NOT NULL,
    next_path   TEXT        NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ
);
CREATE INDEX sign_in_links_email ON sign_in_links (lower(email), created_at);
CREATE INDEX sign_in_links_created ON sign_in_links (created_at);

-- A personal API token for scripts and bots: shown once, kept hashed, revoked by deleting.
CREATE TABLE api_tokens (
    id            BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id    BIGINT      NOT NULL REFERENCES accounts (id),
    token_hash    BYTEA       NOT NULL UNIQUE,
    label         TEXT        NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    last_used_at  TIMESTAMPTZ
);
CREATE INDEX api_tokens_account ON api_tokens (account_id);

-- A seat link made when the seat's owner opens it from "my games": at most one a seat (the
-- next one replaces it), so opening a game again and again holds nothing more.
ALTER TABLE seat_links ADD COLUMN account_id BIGINT REFERENCES accounts (id);
CREATE UNIQUE INDEX seat_links_for_account ON seat_links (game_id, seat) WHERE account_id IS NOT NULL;

-- The result of a finished game in one sentence (seat names as placeholders, as in the log),
-- so "my games" need not replay it.
ALTER TABLE games ADD COLUMN result TEXT;
