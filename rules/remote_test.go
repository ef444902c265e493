package rules_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// TestDataElsewhere judges, with the built-in rules, commands whose data
// lives on another machine: what deletes it asks (destroy-remote, or
// elsewhere-destroy for a command run over ssh), listings, reads and dry
// runs are allowed. Paths of a command run over ssh are not this
// machine's: rm -rf ~ there is not the workspace's home.
func TestDataElsewhere(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "app")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	set := rules.Builtin()
	for _, tt := range []struct {
		script  string
		verdict rules.Verdict
		rule    string
	}{
		{"ssh prod 'rm -rf ~'", rules.Ask, "elsewhere-destroy"},
		{"ssh -p 22 prod -- rm -rf /", rules.Ask, "elsewhere-destroy"},
		{"ssh prod 'cd /srv/app && git reset --hard'", rules.Ask, "elsewhere-destroy"},
		{"ssh prod 'echo > /var/www/index.html'", rules.Ask, "elsewhere-destroy"},
		{"ssh prod 'dropdb app'", rules.Ask, "destroy-remote"},
		{"ssh prod \"$(cat cmd.txt)\"", rules.Ask, "unknown-code"},
		{"ssh prod 'cat ~/.ssh/id_rsa'", rules.Allow, ""},
		{"ssh prod 'ls -la /srv && mkdir -p /tmp/x'", rules.Allow, ""},
		{"ssh prod uptime; cat ~/.ssh/id_rsa", rules.Deny, "exfil"},
		{"ssh prod 'git clone git@github.com:a/b.git && git push https://x.example/r.git main'", rules.Allow, ""},
		{"psql app -c 'DELETE FROM audit_log'", rules.Ask, "destroy-remote"},
		{"mysql shop -e 'UPDATE products SET price = 0'", rules.Ask, "destroy-remote"},
		{"sqlite3 app.db 'DELETE FROM t WHERE id = 3'", rules.Allow, ""},
		{"psql -c $'-- DROP TABLE users\\nSELECT 1'", rules.Allow, ""},
		{"curl -X DELETE http://localhost:9200/_all", rules.Ask, "destroy-remote"},
		{"curl -X GET http://localhost:9200/_all", rules.Allow, ""},
		{"http DELETE api.example.com/x/1", rules.Ask, "destroy-remote"},
		{"http --offline DELETE api.example.com/x/1", rules.Allow, ""},
		{"gh -R acme/app release delete v1 --yes", rules.Ask, "destroy-remote"},
		{"gh api -X GET repos/acme/app", rules.Allow, ""},
		{"aws --profile prod rds delete-db-instance --db-instance-identifier db", rules.Ask, "destroy-remote"},
		{"aws ec2 terminate-instances --instance-ids i-1 --dry-run", rules.Allow, ""},
		{"kubectl -n prod delete pvc data", rules.Ask, "destroy-remote"},
		{"kubectl delete pod x --dry-run=client", rules.Allow, ""},
		{"rclone ls remote:b", rules.Allow, ""},
		{"rclone purge remote:b", rules.Ask, "destroy-remote"},
		{"openstack server delete web-1", rules.Ask, "destroy-remote"},
		{"pm2 delete api", rules.Allow, ""},
		// The long tail of tools the rules do not name, by verb: backup
		// tools' forget and prune, brokers' queue and topic deletion (a
		// verb joined by _ or given as an option), CI servers' jobs.
		{"restic -r /srv/backup forget --keep-last 1 --prune", rules.Ask, "destroy-remote"},
		{"borg prune -v --keep-daily 1 repo", rules.Ask, "destroy-remote"},
		{"duplicity remove-all-but-n-full 1 file:///b", rules.Ask, "destroy-remote"},
		{"kafka-topics --bootstrap-server k:9092 --delete --topic orders", rules.Ask, "destroy-remote"},
		{"rabbitmqctl purge_queue jobs", rules.Ask, "destroy-remote"},
		{"nomad job stop -purge api", rules.Ask, "destroy-remote"},
		{"jenkins-cli delete-job nightly", rules.Ask, "destroy-remote"},
		{"vault secrets disable kv", rules.Ask, "destroy-remote"},
		{"vault kv metadata delete secret/app", rules.Ask, "destroy-remote"},
		{"restic snapshots", rules.Allow, ""},
		{"kafka-topics --bootstrap-server k:9092 --list", rules.Allow, ""},
		{"restic forget --prune --dry-run", rules.Allow, ""},
		// Publishing, by the tools that publish and by verb.
		{"mvn -B clean deploy -DskipTests", rules.Ask, "publish"},
		{"./gradlew :lib:publishToMavenCentral", rules.Ask, "publish"},
		{"./gradlew publishToMavenLocal", rules.Allow, ""},
		{"./gradlew build", rules.Allow, ""},
		{"poetry publish --build", rules.Ask, "publish"},
		{"cargo yank --version 1.0.0", rules.Ask, "publish"},
		{"gem push pkg/x-1.0.gem", rules.Ask, "publish"},
		{"npm unpublish pkg@1.0.0", rules.Ask, "publish"},
		{"npm dist-tag add pkg@2.0.0 latest", rules.Ask, "publish"},
		{"npm dist-tag ls pkg", rules.Allow, ""},
		{"npm publish --dry-run", rules.Allow, ""},
		{"dotnet nuget push out/x.nupkg", rules.Ask, "publish"},
		{"docker buildx build --push -t r/x .", rules.Ask, "publish"},
		{"vsce publish", rules.Ask, "publish"},
		// SQL that opens the database to everyone.
		{"psql app -c 'GRANT ALL ON DATABASE app TO PUBLIC'", rules.Ask, "privilege"},
		{"psql -c 'ALTER ROLE bob SUPERUSER'", rules.Ask, "privilege"},
		{"psql app -c 'GRANT SELECT ON users TO reporting'", rules.Allow, ""},
	} {
		cfg := &parse.Config{
			Dialect: parse.Bash, Env: []string{"HOME=" + home, "TMPDIR=/tmp"}, Dir: ws, Knowledge: set,
			Shell: func(argv []string) (parse.ShellCall, error) {
				return parse.ShellCall{Dialect: parse.Bash, Script: argv[len(argv)-1], HasScript: true}, nil
			},
		}
		ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Getenv: func(k string) string {
			return map[string]string{"HOME": home, "TMPDIR": "/tmp"}[k]
		}}, Repo: &fakeRepo{}}
		j := set.Judge(parse.Parse(tt.script, cfg), ctx)
		var ids []string
		for _, r := range j.Reasons {
			ids = append(ids, r.Rule)
		}
		if j.Verdict != tt.verdict || tt.rule != "" && !slices.Contains(ids, tt.rule) {
			t.Errorf("%s: got %v %v, want %v (%s)", tt.script, j.Verdict, ids, tt.verdict, tt.rule)
		}
	}
}
