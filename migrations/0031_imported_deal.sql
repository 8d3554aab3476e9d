-- An imported game's deal as its record carried it (verified on import): it names another
-- server's published batch, so it is kept whole rather than as a place in this server's.
ALTER TABLE games ADD COLUMN imported_deal JSONB;
