package routingerr

import "strings"

// Network failures as Node, Go and Python HTTP clients report them. They
// happen before or during a response, never because of its content, so a
// retry (resuming the agent session) is safe.
var networkRules = []rule{
	{id: "python.peer_closed.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		any: []string{"peer closed connection", "incomplete chunked read", "server disconnected without sending a response",
			"remoteprotocolerror", "remotedisconnected"}},
	{id: "go.http2_goaway.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		any: []string{"goaway", "http2: client connection lost", "server closed idle connection"}},
	// Node errno codes and undici errors; bounded so "EPIPE" is not found in
	// a word.
	{id: "node.errno.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.85,
		gate: append([]string{"und_err_"}, nodeErrnos...),
		match: func(s *scan) int {
			if i := anyBounded(s.low, nodeErrnos...); i >= 0 {
				return i
			}
			return strings.Index(s.low, "und_err_")
		}},
	{id: "go.net.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		any: []string{"connection reset by peer", "broken pipe", "connection refused", "i/o timeout", "no such host",
			"network is unreachable", "tls handshake timeout", "context deadline exceeded", "use of closed network connection"}},
	{id: "python.net.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		any: []string{"apitimeouterror", "connecterror", "connecttimeout", "readtimeout", "connectionreseterror",
			"connection aborted", "max retries exceeded with url", "temporary failure in name resolution",
			"name or service not known", "read timed out", "connection timed out", "operation timed out"}},
}

var nodeErrnos = []string{"econnreset", "etimedout", "econnrefused", "eai_again", "enotfound",
	"ehostunreach", "enetunreach", "epipe", "econnaborted", "socket hang up", "fetch failed"}
