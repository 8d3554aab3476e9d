-- Clubs (issue 33): the shared core the clubs' pages, ratings, leagues and archive build on.

-- A club is made by a signed-in account, who is its first admin. A private club is invisible
-- to everyone but its members; a closed club takes no new games or members, and its games
-- stay verifiable.
CREATE TABLE clubs (
    id           BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         TEXT        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    description  TEXT        NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
    private      BOOLEAN     NOT NULL,
    created_by   BIGINT      NOT NULL REFERENCES accounts (id),
    created_at   TIMESTAMPTZ NOT NULL,
    closed_at    TIMESTAMPTZ
);

-- Who belongs to a club, and who runs it. A member who leaves is deleted from here; their
-- seats in the club's games stay theirs.
CREATE TABLE club_members (
    club_id     BIGINT      NOT NULL REFERENCES clubs (id),
    account_id  BIGINT      NOT NULL REFERENCES accounts (id),
    role        TEXT        NOT NULL CHECK (role IN ('member', 'admin')),
    joined_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (club_id, account_id)
);
CREATE INDEX club_members_account ON club_members (account_id);

-- A club's game: made by a member from the club, with no organiser link (the club's admins
-- act on it with their session). A private club's game is shown to its members only.
ALTER TABLE games ADD COLUMN club_id BIGINT REFERENCES clubs (id);
CREATE INDEX games_club ON games (club_id, id) WHERE club_id IS NOT NULL;

-- A lobby table may belong to a club: listed to and joined by its members only.
ALTER TABLE open_tables ADD COLUMN club_id BIGINT REFERENCES clubs (id);
CREATE INDEX open_tables_club ON open_tables (club_id, created_at, id)
    WHERE status = 'open' AND club_id IS NOT NULL;
