package platform

import (
	"testing"

	"github.com/cordonsh/cordon/credvar"
	"github.com/cordonsh/cordon/rules"
)

// benchEnv is a developer's environment of 60 variables, a few of them
// credentials.
var benchEnv = func() []string {
	env := []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/dev", "USER=dev", "SHELL=/bin/bash", "TERM=xterm-256color", "LANG=en_US.UTF-8",
		"PWD=/home/dev/src/app", "OLDPWD=/home/dev", "SHLVL=2", "LOGNAME=dev", "EDITOR=vim", "DISPLAY=:0", "XAUTHORITY=/run/user/1000/xauth",
		"SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", "XDG_RUNTIME_DIR=/run/user/1000", "XDG_SESSION_TYPE=wayland", "DESKTOP_SESSION=gnome",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "GOPATH=/home/dev/go", "GOFLAGS=-mod=mod", "NODE_OPTIONS=--max-old-space-size=4096",
		"GITHUB_TOKEN=ghp_x", "OPENAI_API_KEY=sk-x", "DATABASE_URL=postgres://app:pw@db/app", "DB_PASS=x", "TOKENIZERS_PARALLELISM=false",
		"GIT_AUTHOR_NAME=dev", "GIT_AUTHOR_EMAIL=dev@example.com", "CLAUDECODE=1", "COLORTERM=truecolor", "LESS=-R", "PAGER=less",
	}
	for len(env) < 60 {
		env = append(env, "VAR_"+string(rune('A'+len(env)%26))+"_SETTING=value")
	}
	return env
}()

func BenchmarkFilterEnv(b *testing.B) {
	set := rules.Builtin()
	b.ReportAllocs()
	for b.Loop() {
		FilterEnv(benchEnv, credvar.New(set.CredentialVars(), set.CredentialWords(), set.CredentialValues()), nil)
	}
}

func BenchmarkFilterEnvMatcherBuilt(b *testing.B) {
	set := rules.Builtin()
	m := credvar.New(set.CredentialVars(), set.CredentialWords(), set.CredentialValues())
	b.ReportAllocs()
	for b.Loop() {
		FilterEnv(benchEnv, m, nil)
	}
}
