-- One running vacation per address, enforced here (issue 30, F4): two starts at once used to
-- leave two running. Duplicates already in the table are ended first: every running vacation
-- of an address but its earliest ends at its own start, so it counts no vacation days.
UPDATE vacations v SET ended_at = v.started_at
WHERE v.ended_at IS NULL
  AND EXISTS (SELECT 1 FROM vacations w
              WHERE w.email = v.email AND w.ended_at IS NULL AND w.started_at < v.started_at);
DROP INDEX IF EXISTS vacations_running;
CREATE UNIQUE INDEX vacations_running ON vacations (email) WHERE ended_at IS NULL;
