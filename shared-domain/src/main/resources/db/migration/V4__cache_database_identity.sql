-- Which database this is, to the cache: a random identity drawn when the schema is created, so a
-- recreated database (dropped and migrated again, then loaded) has another. Redis records the
-- identity of the database its L2 entries were read from, and an instance that finds another one
-- recorded there empties L2 before reading it (dev.tandem.cache.LogFollower): without it, a
-- database recreated under a Redis that kept its keys was served the former database's entries
-- until their time to live. A restored dump brings its identity back with it, so it is not
-- detected: flush the cache after a restore (DELETE /actuator/cache).
CREATE TABLE cache_database (
  singleton  TINYINT  NOT NULL DEFAULT 1,
  identity   CHAR(36) NOT NULL,
  PRIMARY KEY (singleton),
  CONSTRAINT cache_database_one_row CHECK (singleton = 1)
) ENGINE = InnoDB;

INSERT INTO cache_database (identity) VALUES (UUID());
