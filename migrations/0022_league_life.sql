-- Leagues running (issue 33, item 6): what 0020 laid out, brought to life. The players a
-- table seats, each league game's result as the table reads it, and the flag the scheduler
-- pass looks for.

-- How many play at each table (Statehood is played by three or four).
ALTER TABLE leagues ADD COLUMN seat_count INT NOT NULL DEFAULT 2
    CHECK (seat_count BETWEEN 2 AND 4);
-- Set when something a league waits on happened (one of its games ended, an entrant left, it
-- started): the scheduler's pass opens the rounds that may start, and finishes the league.
ALTER TABLE leagues ADD COLUMN pass_due BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX leagues_pass_due ON leagues (id) WHERE pass_due AND status = 'running';

-- How a league game ended, written in its last entry's transaction (or, for a game never
-- started because an entrant left, when the pass forfeits it). `ended_at` set with neither
-- `places` nor `timed_out`: no result (cancelled, or never played).
ALTER TABLE league_games ADD COLUMN ended_at TIMESTAMPTZ;
-- Each seat's final place, 1 the best, when the rules ended the game.
ALTER TABLE league_games ADD COLUMN places INT[];
-- The seat whose time ran out (the clock's forfeit).
ALTER TABLE league_games ADD COLUMN timed_out INT CHECK (timed_out >= 0);
ALTER TABLE league_games ADD CONSTRAINT league_games_one_result
    CHECK (places IS NULL OR timed_out IS NULL);
