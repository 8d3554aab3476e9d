-- Limits of inbound mail that hold across processes (issue 30).

-- A reply that passed the hourly limits is marked counted, with the sender it was counted
-- for: the count of replies a seat, or an address, had in the last hour is read from these
-- rows (under an advisory lock), so every `postplay receive` process agrees on it.
ALTER TABLE inbound_mail ADD COLUMN sender TEXT;
ALTER TABLE inbound_mail ADD COLUMN counted_at TIMESTAMPTZ;
CREATE INDEX inbound_mail_counted_seat ON inbound_mail (game_id, seat, counted_at)
    WHERE counted_at IS NOT NULL;
CREATE INDEX inbound_mail_counted_sender ON inbound_mail (sender, counted_at)
    WHERE counted_at IS NOT NULL;

-- Mail for no reply address of ours is capped (rows and bytes, oldest dropped first) and
-- pruned after a week.
CREATE INDEX inbound_mail_unknown ON inbound_mail (received_at) WHERE game_id IS NULL;

-- Reply addresses end a week after their game ends and are pruned then.
CREATE INDEX games_over ON games (updated_at) WHERE status = 'over';
