-- A club's archive and lists (issue 33, item 7): a club's games of one status, most recently
-- moved first, so the club's page (running and finished games) and the archive's pages read
-- an index in order instead of sorting every game of the club. The game's kind and league
-- ride along so the archive's filters by game and league are checked in the index.
CREATE INDEX games_club_status ON games (club_id, status, updated_at DESC, id DESC)
    INCLUDE (kind, league_id) WHERE club_id IS NOT NULL;
