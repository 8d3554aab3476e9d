-- The organiser's desk (issue 14): an entry the organiser made (the cancellation of a game),
-- `"by": "organiser"` in the hash chain, as `by_clock` marks the clock's.
ALTER TABLE commands ADD COLUMN by_organiser BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE commands ADD CONSTRAINT commands_one_author CHECK (NOT (by_clock AND by_organiser));
