-- The first hour (issue 47): a signed-in creator finds the games they organise on their own
-- page and reaches each one's desk with their session, from any device. The organiser link
-- still works for everyone else; a game made signed out has no account here.
ALTER TABLE games ADD COLUMN organiser_account BIGINT REFERENCES accounts (id) ON DELETE SET NULL;
CREATE INDEX games_organiser_account ON games (organiser_account) WHERE organiser_account IS NOT NULL;
