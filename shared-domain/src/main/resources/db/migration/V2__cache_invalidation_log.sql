-- The cache's invalidation log (dev.tandem.cache.InvalidationLog), a transactional outbox: every
-- write appends what it made stale in the same transaction as the change, so a committed change
-- cannot lose its invalidation, whatever happens to the writer or to Redis afterwards. Every
-- instance follows the log (seq order) to keep its L1 coherent and relays to Redis what a writer
-- could not. Rows live tandem.cache.log.retention, then any instance that has followed past them
-- deletes them.
CREATE TABLE cache_invalidations (
  seq         BIGINT      NOT NULL AUTO_INCREMENT,
  -- 0: invalidate the targets; 1: flush every cache (seeding, the admin endpoint)
  kind        TINYINT     NOT NULL,
  -- Invalidation.encode(): the caches and keys (ids, subjects) the write made stale
  targets     BLOB        NOT NULL,
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (seq),
  KEY idx_cache_invalidations_created (created_at)
) ENGINE = InnoDB;

-- Who follows the log: each instance notes itself here every few seconds (its id, how far it has
-- read), so an operator, the admin endpoint and the bench can tell which instances share the cache.
CREATE TABLE cache_followers (
  instance_id  VARCHAR(100) NOT NULL,
  position     BIGINT       NOT NULL,
  last_seen    DATETIME(6)  NOT NULL,
  PRIMARY KEY (instance_id)
) ENGINE = InnoDB;
