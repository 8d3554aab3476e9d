-- Club life (issue 33): invitations by address, and what the club's pages read.

-- An invitation to a club, mailed to an address: its link signs the reader in with that
-- address and makes them a member. Only the token's hash is kept. A row ends when it is
-- accepted or withdrawn (or the club closes); ended rows are the per-club daily count of
-- invitations made, and are deleted a day after they were made.
CREATE TABLE club_invites (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    club_id     BIGINT      NOT NULL REFERENCES clubs (id),
    email       TEXT        NOT NULL,
    token_hash  BYTEA       UNIQUE,
    invited_by  BIGINT      NOT NULL REFERENCES accounts (id),
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    ended_at    TIMESTAMPTZ
);
-- One pending invitation per address and club.
CREATE UNIQUE INDEX club_invites_pending ON club_invites (club_id, lower(email))
    WHERE ended_at IS NULL;
CREATE INDEX club_invites_made ON club_invites (club_id, created_at);

-- A club's admins are counted (the last one may not leave), its members listed by name.
CREATE INDEX club_members_role ON club_members (club_id, role);
-- The public clubs' list, newest first.
CREATE INDEX clubs_public ON clubs (created_at DESC, id DESC) WHERE NOT private;
-- The clubs an account made, for the bound on them.
CREATE INDEX clubs_creator ON clubs (created_by) WHERE closed_at IS NULL;
