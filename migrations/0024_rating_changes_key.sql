-- A rating change names the club rating it changed (issue 33): one foreign key to
-- club_ratings in place of one to accounts and one to clubs, which that row already holds.
-- Writing a game's changes then checks rows its own transaction has just updated, instead of
-- locking each player's account and the club's row for share at every game's end.
ALTER TABLE rating_changes
    DROP CONSTRAINT rating_changes_account_id_fkey,
    DROP CONSTRAINT rating_changes_club_id_fkey,
    ADD CONSTRAINT rating_changes_rating_fkey FOREIGN KEY (club_id, kind, account_id)
        REFERENCES club_ratings (club_id, kind, account_id);
