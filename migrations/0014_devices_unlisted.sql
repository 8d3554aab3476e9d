-- Device links and unlisted games (issue 32).

-- A seat's owner opening it from "my games" gets a link per device (keyed by a hash of the
-- signed-in session), at most five a seat (the oldest is ended first), instead of one link a
-- seat that the next device's opening ended.
DROP INDEX seat_links_for_account;
ALTER TABLE seat_links ADD COLUMN device_hash BYTEA;
CREATE UNIQUE INDEX seat_links_device ON seat_links (game_id, seat, device_hash)
    WHERE account_id IS NOT NULL;

-- Which seat a link that has ended belonged to, so a signed-in owner who opens an old link of
-- their own seat is sent to the seat; nobody else learns anything from it. Only hashes, a
-- bounded number a seat (the newest are kept).
CREATE TABLE ended_links (
    token_hash  BYTEA       PRIMARY KEY,
    game_id     BIGINT      NOT NULL,
    seat        INTEGER     NOT NULL,
    ended_at    TIMESTAMPTZ NOT NULL,
    FOREIGN KEY (game_id, seat) REFERENCES seats (game_id, seat)
);
CREATE INDEX ended_links_seat ON ended_links (game_id, seat, ended_at);

-- An unlisted game is shown by no list and answers no route keyed by its (sequential) id: its
-- public pages are reached through its spectator link only. The link is kept in clear (it is
-- shown again on the desk and to every seat, and opens only what the database already holds
-- in clear); it is looked up by its hash.
ALTER TABLE games ADD COLUMN spectator_token TEXT;
ALTER TABLE games ADD COLUMN spectator_hash BYTEA UNIQUE;

-- A lobby table may be unlisted: not in the lobby's list, and its game is unlisted.
ALTER TABLE open_tables ADD COLUMN unlisted BOOLEAN NOT NULL DEFAULT false;
