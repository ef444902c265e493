package sqlkind

import (
	"slices"
	"testing"
)

func TestKinds(t *testing.T) {
	for _, c := range []struct {
		code string
		want []string
	}{
		// What opens the database to everyone.
		{"GRANT ALL ON DATABASE shop TO app", []string{"grant-all"}},
		{"grant all privileges on all tables in schema public to bob", []string{"grant-all"}},
		{"GRANT SELECT ON users TO PUBLIC", []string{"grant-all"}},
		{"GRANT admin TO bob WITH ADMIN OPTION", []string{"grant-all"}},
		{"GRANT SELECT ON t TO bob WITH GRANT OPTION", []string{"grant-all"}},
		{"ALTER ROLE bob SUPERUSER", []string{"grant-all"}},
		{"CREATE USER eve WITH SUPERUSER PASSWORD 'x'", []string{"grant-all"}},
		{"GRANT SELECT ON users TO reporting", []string{"grant"}},
		{"GRANT SELECT ON t TO bob; -- TO PUBLIC", []string{"grant"}},
		{"CREATE ROLE r LOGIN PASSWORD 'SUPERUSER'", []string{"create"}},
		{"ALTER ROLE bob NOSUPERUSER", []string{"alter"}},
		// What deletes data.
		{"DELETE FROM audit_log", []string{"delete-all"}},
		{"delete from sessions;", []string{"delete-all"}},
		{"DELETE FROM t WHERE id = 3", []string{"delete"}},
		{"delete from t where 1=1", []string{"delete-all"}},
		{"DELETE FROM t WHERE 1 = 1 RETURNING *", []string{"delete-all"}},
		{"DELETE FROM t WHERE true", []string{"delete-all"}},
		{"UPDATE users SET role = 'admin'", []string{"update-all"}},
		{"UPDATE users SET role = 'x' WHERE id = 1", []string{"update"}},
		{"update t set a = (select b from u where u.id = 1)", []string{"update-all"}},
		{"UPDATE t SET note = 'where is it'", []string{"update-all"}},
		{"TRUNCATE users CASCADE", []string{"truncate"}},
		{"truncate table logs", []string{"truncate"}},
		{"DROP TABLE users", []string{"drop-table"}},
		{"drop table if exists users", []string{"drop-table"}},
		{"DROP DATABASE shop", []string{"drop-database"}},
		{"DROP SCHEMA public CASCADE", []string{"drop-schema"}},
		{"DROP MATERIALIZED VIEW v", []string{"drop-view"}},
		{"DROP TEMPORARY TABLE scratch", []string{"drop-temporary"}},
		{"DROP KEYSPACE shop", []string{"drop-keyspace"}},
		{"ALTER TABLE users DROP COLUMN email", []string{"alter-drop-column"}},
		{"alter table users drop email", []string{"alter-drop-column"}},
		{"ALTER TABLE t DROP CONSTRAINT t_pkey", []string{"alter-drop-constraint"}},
		{"ALTER TABLE events DROP PARTITION p2020", []string{"alter-drop-partition"}},
		{"WITH old AS (SELECT id FROM t WHERE x < 3) DELETE FROM t", []string{"delete-all"}},
		{"WITH old AS (SELECT id FROM t) DELETE FROM t WHERE id IN (SELECT id FROM old)", []string{"delete"}},
		{"EXPLAIN ANALYZE DELETE FROM t", []string{"delete-all"}},
		{"EXPLAIN (ANALYZE, BUFFERS) UPDATE t SET a = 1", []string{"update-all"}},
		{"EXPLAIN DELETE FROM t", []string{"explain"}},

		// Several statements, comments, quotes.
		{"BEGIN; DELETE FROM orders; COMMIT;", []string{"begin", "delete-all", "commit"}},
		{"SELECT 1;\nDELETE FROM events;\n", []string{"select", "delete-all"}},
		{"-- DROP TABLE users\nSELECT 1", []string{"select"}},
		{"/* DELETE FROM t; */ SELECT 1", []string{"select"}},
		{"INSERT INTO log (msg) VALUES ('delete from x; drop table y')", []string{"insert"}},
		{`SELECT "weird;name" FROM t`, []string{"select"}},
		{"SELECT `a;b` FROM t", []string{"select"}},
		{"SELECT 'it''s; DROP TABLE t'", []string{"select"}},
		{"CREATE FUNCTION f() RETURNS void AS $$ DELETE FROM t; $$ LANGUAGE sql", []string{"create"}},
		{"SELECT $tag$ ; DROP TABLE t; $tag$", []string{"select"}},
		// A backslash does not escape a quote in standard SQL: the
		// statement after it is read (MySQL would read one string; the
		// stricter reading wins).
		{`SELECT 'a\'; DELETE FROM t; --'`, []string{"select", "delete-all"}},
		// An unclosed quote ends with its line.
		{"SELECT 'oops\nDELETE FROM t", []string{"select"}},
		{"SELECT 'oops\nx';\nDELETE FROM t", []string{"select", "delete-all"}},

		// Client commands and unknown text.
		{"\\dt\nSELECT 1", []string{"meta", "select"}},
		{".tables", []string{"meta"}},
		{".mode csv\n.import x.csv t\nDELETE FROM t", []string{"meta", "meta", "delete-all"}},
		{"\uFDD0", []string{"unknown"}},
		{"DELETE FROM \uFDD0", []string{"delete-all"}},
		{"DELETE FROM t WHERE id = \uFDD0", []string{"delete"}},
		{"", nil},
		{" ; ;", nil},
		{"select now()", []string{"select"}},
		{"PRAGMA table_info(t)", []string{"pragma"}},
		{"SHOW TABLES", []string{"show"}},
	} {
		if got := Kinds(c.code); !slices.Equal(got, c.want) {
			t.Errorf("Kinds(%q) = %q, want %q", c.code, got, c.want)
		}
	}
}
