// Package broker puts a person's credentials on a sandboxed command's
// requests in transit, so that the command can use them without ever
// holding them (docs/network.md, "Credentials used, never held").
//
// Inside the sandbox a credential is a placeholder, unique to the
// session and worthless anywhere else. The network proxy on the host
// hands the broker every connection to a host that takes a credential:
// the broker ends TLS there with a certificate of the person's own
// certificate authority (made on first use, its key in cordon's state
// directory, hidden from every sandbox), swaps each placeholder for the
// real value on requests to the credential's own hosts only, and sends
// the request on to the real host over TLS verified against the host's
// trust. A placeholder on its way anywhere else is refused. Every other
// connection stays an end-to-end tunnel the broker never sees into.
package broker
