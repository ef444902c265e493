package platform

import (
	"fmt"
	"os"
	"strings"
)

// brokerFor prepares one start with the network allowlist to broker
// p's credentials: the broker (p.brokerage, or one of the start's own
// with a fresh key), the copy of p that binds the bundle trusting it
// over the host's bundles, and env with the placeholders and the
// bundle's variables, and git's configuration for the workspace's own
// remotes (see [GitCredentials]). Nothing to broker: p, env and nil. A
// broker that cannot run: the same, and one line on stderr; the
// variables stay withheld (env never held them), and git's helpers say
// why it cannot authenticate.
func brokerFor(p *Policy, stateDir string, env []string) (*Policy, []string, *Brokerage) {
	if p.Network != NetworkAllowlist || !p.brokersAny() || (p.brokerage == nil && len(p.secrets) == 0 && len(p.GitRemotes) == 0 && len(p.TokenFiles) == 0) {
		return p, WithGitConfig(env, (*Brokerage)(nil).GitConfig(p)), nil
	}
	withheld := func(err error) (*Policy, []string, *Brokerage) {
		var names []string
		for _, k := range p.Credentials {
			names = append(names, k.Env)
		}
		if len(names) > 0 {
			fmt.Fprintf(os.Stderr, "cordon: %s withheld from the sandbox: %v\n", strings.Join(names, ", "), err)
		}
		return p, WithGitConfig(env, (*Brokerage)(nil).GitConfig(p)), nil
	}
	bk := p.brokerage
	if bk == nil {
		var err error
		if bk, err = NewBrokerage(stateDir, nil); err != nil {
			return withheld(fmt.Errorf("the credential broker cannot run (%v)", err))
		}
	}
	bundle, targets, err := bk.bundle(p)
	if err != nil {
		return withheld(err)
	}
	c := *p
	c.CABundle, c.CATargets = bundle, targets
	bk.addFiles(&c)
	return &c, WithGitConfig(WithCAEnv(SetVars(env, bk.Add(p, p.secrets)), targets[0]), bk.GitConfig(p)), bk
}

// bundle is the bundle that trusts the broker's authority for p's
// sandbox and where it is bound (see [SystemBundle]).
func (b *Brokerage) bundle(p *Policy) (string, []string, error) {
	system, targets := SystemBundle(p)
	if len(targets) == 0 {
		return "", nil, fmt.Errorf("no bundle of trusted certificates on this host (SSL_CERT_FILE, %s) to add the broker's authority to", systemBundles[0])
	}
	bundle, err := b.CA.Bundle(system)
	if err != nil {
		return "", nil, err
	}
	return bundle, targets, nil
}

// Check says why b cannot broker for a sandbox of p (no bundle to add
// its authority to, or none written), or nil.
func (b *Brokerage) Check(p *Policy) error {
	_, _, err := b.bundle(p)
	return err
}

// SessionEnv is what a command of a session whose sandbox p's start made
// with brokerage b gets in its environment for its credentials secrets
// ("NAME=value", given to the broker): the placeholders and the
// bundle's variables; nil when the session brokers nothing.
func (b *Brokerage) SessionEnv(p *Policy, secrets []string) ([]string, error) {
	if b == nil || p.Network != NetworkAllowlist || !p.brokersAny() {
		return nil, nil
	}
	_, targets := SystemBundle(p)
	if len(targets) == 0 {
		return nil, fmt.Errorf("no bundle of trusted certificates on this host")
	}
	return WithCAEnv(b.Add(p, secrets), targets[0]), nil
}

// Brokers reports whether a start of backend b serves a broker for the
// credentials of p (the network allowlist behind the proxy; see
// [brokerFor]): then their variables hold placeholders, worthless
// anywhere but on their own hosts.
func Brokers(b Backend, p *Policy) bool {
	if p == nil || p.Network != NetworkAllowlist || !p.brokersAny() {
		return false
	}
	switch b := b.(type) {
	case *bwrapBackend:
		return true
	case *landlockBackend:
		return b.netns
	}
	return false
}
