-- A row's relay marker in Redis holds the row's relay_token, a random number its writer draws,
-- and a follower takes the row for relayed only when the marker it finds holds that token. Keyed by
-- seq alone, a marker left by an earlier log (a recreated database, its numbering restarted; the
-- markers live twice the retention in Redis) would stand for a new row of the same number, and
-- that row's invalidation would never reach L2 if its writer could not relay it. Rows from before
-- this column, and rows an older build writes during an upgrade, hold 0 (new tokens are never 0):
-- for them any marker still counts, as before, so an upgrade relays no row again.
ALTER TABLE cache_invalidations ADD COLUMN relay_token BIGINT NOT NULL DEFAULT 0;
