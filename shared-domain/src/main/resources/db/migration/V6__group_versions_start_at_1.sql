-- A group's version starts at 1. DeleteGroup reads an expected_version of 0 as "whatever the
-- version" (proto3 cannot tell 0 from unset), and every group started at 0 and stays there until its
-- first update: a client that had read a group at 0 and sent 0 deleted it whatever had changed since.
-- Moving every version up by one keeps each group's order of versions; new groups start at 1
-- (StudyGroup.FIRST_VERSION; the column default follows for rows inserted by hand).
UPDATE study_groups SET version = version + 1;
ALTER TABLE study_groups ALTER COLUMN version SET DEFAULT 1;
-- The cache holds groups with their old versions, and this migration writes no invalidation:
-- a new identity (V4) makes every instance flush its L1 and empty L2 within a follower's
-- housekeeping pass (5 s), as for a recreated database. Until then a read may still show a group's
-- old version, and a write with it is ABORTED: the client reads again.
UPDATE cache_database SET identity = UUID();
