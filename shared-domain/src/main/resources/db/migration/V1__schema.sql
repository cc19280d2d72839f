-- Tandem schema. Written for MySQL 8 and run unchanged on MariaDB 10.11 locally.
-- Times are UTC DATETIME(6) (not TIMESTAMP) so they survive 2038 and never shift with a session zone.

CREATE TABLE users (
  id          BIGINT       NOT NULL AUTO_INCREMENT,
  name        VARCHAR(100) NOT NULL,
  email       VARCHAR(254) NOT NULL,
  created_at  DATETIME(6)  NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uk_users_email (email)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE TABLE study_groups (
  id           BIGINT        NOT NULL AUTO_INCREMENT,
  name         VARCHAR(100)  NOT NULL,
  subject      VARCHAR(50)   NOT NULL,
  description  VARCHAR(1000) NOT NULL DEFAULT '',
  capacity     INT           NOT NULL,
  owner_id     BIGINT        NOT NULL,
  -- optimistic locking: UpdateGroup/DeleteGroup compare it, JPA bumps it
  version      BIGINT        NOT NULL DEFAULT 0,
  created_at   DATETIME(6)   NOT NULL,
  PRIMARY KEY (id),
  -- ListGroups walks one subject in id order (keyset pagination)
  KEY idx_groups_subject_id (subject, id),
  KEY idx_groups_owner (owner_id),
  CONSTRAINT fk_groups_owner FOREIGN KEY (owner_id) REFERENCES users (id),
  CONSTRAINT ck_groups_capacity CHECK (capacity BETWEEN 2 AND 500)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE TABLE group_members (
  group_id   BIGINT      NOT NULL,
  user_id    BIGINT      NOT NULL,
  joined_at  DATETIME(6) NOT NULL,
  -- one membership per user and group: a duplicate join is a conflict, not a second row
  PRIMARY KEY (group_id, user_id),
  KEY idx_members_user (user_id),
  CONSTRAINT fk_members_group FOREIGN KEY (group_id) REFERENCES study_groups (id) ON DELETE CASCADE,
  CONSTRAINT fk_members_user FOREIGN KEY (user_id) REFERENCES users (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE TABLE study_sessions (
  id                BIGINT       NOT NULL AUTO_INCREMENT,
  group_id          BIGINT       NOT NULL,
  topic             VARCHAR(200) NOT NULL,
  starts_at         DATETIME(6)  NOT NULL,
  duration_minutes  INT          NOT NULL,
  location          VARCHAR(200) NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  KEY idx_sessions_group_start (group_id, starts_at),
  CONSTRAINT fk_sessions_group FOREIGN KEY (group_id) REFERENCES study_groups (id) ON DELETE CASCADE,
  CONSTRAINT ck_sessions_duration CHECK (duration_minutes BETWEEN 15 AND 480)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE TABLE ratings (
  group_id    BIGINT       NOT NULL,
  user_id     BIGINT       NOT NULL,
  stars       TINYINT      NOT NULL,
  comment     VARCHAR(500) NOT NULL DEFAULT '',
  created_at  DATETIME(6)  NOT NULL,
  -- one rating per user and group
  PRIMARY KEY (group_id, user_id),
  KEY idx_ratings_user (user_id),
  CONSTRAINT fk_ratings_group FOREIGN KEY (group_id) REFERENCES study_groups (id) ON DELETE CASCADE,
  CONSTRAINT fk_ratings_user FOREIGN KEY (user_id) REFERENCES users (id),
  CONSTRAINT ck_ratings_stars CHECK (stars BETWEEN 1 AND 5)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
