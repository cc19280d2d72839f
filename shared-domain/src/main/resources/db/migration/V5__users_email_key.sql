-- An e-mail address is taken whatever its letter case, and only then. The unique key compared the
-- column under the table's collation, utf8mb4_unicode_ci, which also ignores accents and folds
-- ß to ss: josé@example.test was refused as taken by jose@example.test, another mailbox. The key is
-- now the address in lower case compared byte for byte. Existing rows cannot collide on it: two
-- addresses equal in lower case were already equal under the old key.
ALTER TABLE users
  ADD COLUMN email_key VARCHAR(254) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
      GENERATED ALWAYS AS (LOWER(email)) STORED,
  DROP INDEX uk_users_email,
  ADD UNIQUE KEY uk_users_email (email_key);
