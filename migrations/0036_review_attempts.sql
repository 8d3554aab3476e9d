-- A review the store could not be read for (the database away a moment, a failover) is tried
-- again later rather than failed (docs/BOTS.md "Review"): how many tries it has had, which sets
-- when the next may be (its lease_until) and when to give up.
ALTER TABLE reviews ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
