-- How far the invalidation log's purge has gone: the highest number it has deleted or is about to
-- delete (dev.tandem.cache.InvalidationLog.purge raises it before each deletion). A resumed watch
-- asks the log whether anything touched its group after a position (changedSince), and the rows
-- left cannot tell that on their own: the purge deletes by age, and a write that took its number
-- before older rows were deleted but committed after them leaves the log starting right above a
-- position whose following rows are gone. A position below this one gets the group's state.
CREATE TABLE cache_log_purge (
  singleton     TINYINT NOT NULL DEFAULT 1,
  purged_up_to  BIGINT  NOT NULL,
  PRIMARY KEY (singleton),
  CONSTRAINT cache_log_purge_one_row CHECK (singleton = 1)
) ENGINE = InnoDB;

-- Earlier purges did not note how far they went: every position the log holds now is treated as
-- possibly followed by purged rows, so a watch resumed from before this migration gets the state
-- once, as a client that has missed a change would.
INSERT INTO cache_log_purge (purged_up_to) SELECT COALESCE(MAX(seq), 0) FROM cache_invalidations;
