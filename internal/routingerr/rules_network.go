package routingerr

import (
	"slices"
	"strings"
)

// Network failures as Node, Go and Python HTTP clients report them. They
// happen before or during a response, never because of its content, so a
// retry (resuming the agent session) is safe.
var networkRules = []rule{
	// HTTP/2 error codes a peer sends when it will not serve the request as
	// made (RFC 9113 §7: HTTP_1_1_REQUIRED, INADEQUATE_SECURITY; Go's
	// "stream error: stream ID 5; HTTP_1_1_REQUIRED; received from peer",
	// nghttp2's NGHTTP2_HTTP_1_1_REQUIRED in Node): the same request meets
	// the same refusal, so the client or the proxy in between must change
	// (turn HTTP/2 off, fix TLS). Before the stream-cut rule that reads
	// "stream error".
	// undici names the RST_STREAM code by number ('HTTP/2: "stream error"
	// received - code 13', lib/dispatcher/client-h2.js): 13 is
	// HTTP_1_1_REQUIRED, 12 INADEQUATE_SECURITY; the h2 crate under hyper
	// and reqwest by its Reason's description ("stream error received:
	// endpoint requires HTTP/1.1").
	{id: "http2.refused_protocol.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		gate: append([]string{`"stream error" received - code 1`}, http2RefusedWords...),
		match: func(s *scan) int {
			for _, w := range http2RefusedWords {
				if i := strings.Index(s.low, w); i >= 0 {
					return i
				}
			}
			const w = `"stream error" received - code 1`
			i := strings.Index(s.low, w)
			if j := i + len(w); i >= 0 && j < len(s.low) && (s.low[j] == '2' || s.low[j] == '3') && (j+1 == len(s.low) || !isDigit(s.low[j+1])) {
				return i
			}
			return -1
		}},
	// A TLS handshake the peer (or the client itself) refused by its alert,
	// in each stack's notation: Go's alertText ("remote error: tls: bad
	// certificate", crypto/tls alert.go), OpenSSL's reason strings as Node
	// and Python print them ("tlsv1 alert unknown ca", "sslv3 alert bad
	// certificate", "tlsv1 unrecognized name"; RFC 8446 §6.2). These say
	// the configuration on one side (the certificate, the name, the
	// protocol versions, a client certificate, a middlebox) must change:
	// the same handshake meets the same alert. The alerts a broken
	// connection sends are tls.alert_transient.v1's.
	{id: "tls.alert_refused.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		gate:  append(append([]string{}, tlsAlertPrefixes...), tlsRefusedOther...),
		match: func(s *scan) int { return tlsAlert(s.low, true) }},
	// The certificate verification results OpenSSL reports (X509_V_ERR_*),
	// by the code Node and Bun put on the error and by their message, where
	// tls.certificate.v1 does not list them: a certificate not yet valid,
	// revoked, untrusted, with the wrong name or purpose (Bun's
	// FetchTasklet, Node's crypto_common). aiohttp's fingerprint pinning
	// (ServerFingerprintMismatch) refuses a certificate the same way.
	{id: "tls.cert_verify.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		gate: []string{"certificate", "cert_", "unable_to_", "invalid_ca", "invalid_purpose", "_mismatch", "fingerprintmismatch"},
		match: func(s *scan) int {
			for _, w := range tlsCertVerifyWords {
				if i := strings.Index(s.low, w); i >= 0 {
					return i
				}
			}
			return -1
		}},
	// Windows Schannel refusing the handshake for trust or credentials, by
	// the SSPI status curl (and what wraps it: git, the tools an agent runs,
	// Windows builds of agents) names ("schannel: next
	// InitializeSecurityContext failed: CRYPT_E_REVOCATION_OFFLINE
	// (0x80092013) - …", "schannel: AcquireCredentialsHandle failed:
	// SEC_E_NO_CREDENTIALS (0x8009030E) - …", "schannel: CertGetCertificateChain
	// trust error CERT_TRUST_IS_UNTRUSTED_ROOT"; curl lib/vtls/schannel.c,
	// lib/strerror.c Curl_sspi_strerror), by the code alone where an older
	// curl printed "Unknown error (0x80092012)", and by the Windows message
	// text (winerror.h). A root the store does not trust (a TLS-inspecting
	// proxy's), a revocation server the network blocks, a name that does
	// not match, a sandbox or service account without credentials: the same
	// handshake is refused again until the machine's configuration changes.
	// Catalogue: transport-schannel-*. Statuses of a connection that broke
	// mid-handshake (SEC_E_INCOMPLETE_MESSAGE, SEC_E_DECRYPT_FAILURE,
	// SEC_E_MESSAGE_ALTERED) are not listed.
	{id: "tls.schannel_refused.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: schannelRefusedWords},
	// The request's URL or headers are such that no network can serve them:
	// a scheme or port the client will not fetch, a host that cannot
	// exist ("lookup https: no such host": a base URL written
	// "https://https://…"), a redirect loop, a header value with a control
	// character (an API key pasted with its newline). Each client's own
	// error name or text (undici lib/web/fetch, Go net/http and net/url,
	// httpx, requests, urllib3, aiohttp, Bun): a human must fix the
	// configuration; a replay fails the same way.
	{id: "net.request_unusable.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		gate: append([]string{"lookup http", "enotfound http", "failed to resolve 'http", "stopped after "}, requestUnusableWords...),
		match: func(s *scan) int {
			for _, w := range requestUnusableWords {
				if i := s.index(w, false); i >= 0 {
					return i
				}
			}
			if i := impossibleHost(s.low); i >= 0 {
				return i
			}
			return goRedirectLimit(s.low)
		}},
	// A proxy that answered the CONNECT with a refusal: undici's
	// "Proxy response (407) !== 200 when HTTP Tunneling"
	// (lib/dispatcher/proxy-agent.js), urllib3's "Tunnel connection
	// failed: 403 Forbidden", curl's "CONNECT tunnel failed, response 407".
	// A 4xx from the proxy is its policy or its credentials; a 5xx is the
	// proxy failing to reach the provider, and a 408 or 429 the proxy
	// asking to come back later (proxy.tunnel_failed.v1).
	{id: "proxy.tunnel_refused.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		gate:  proxyTunnelForms,
		match: func(s *scan) int { return proxyTunnelStatus(s.low, false) }},
	{id: "proxy.tunnel_failed.v1", band: bandTransport, code: "unavailable", class: ClassTransient, conf: 0.8,
		gate:  proxyTunnelForms,
		match: func(s *scan) int { return proxyTunnelStatus(s.low, true) }},
	// The alerts of a connection that broke rather than a handshake that was
	// refused (internal_error, record_overflow, unexpected_message,
	// user_canceled, decryption_failed; bad_record_mac is
	// net.connection_words.v1's): the next connection goes through.
	{id: "tls.alert_transient.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		gate:  tlsAlertPrefixes,
		match: func(s *scan) int { return tlsAlert(s.low, false) }},
	// gRPC's PERMISSION_DENIED by its status name (grpc-go's "rpc error:
	// code = PermissionDenied desc = …", grpcio's StatusCode.PERMISSION_DENIED,
	// grpc-js's "7 PERMISSION_DENIED: …"): the caller lacks a permission
	// on the resource; the provider rules before it read a billing reason.
	{id: "grpc.permission_denied.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"code = permissiondenied", "statuscode.permission_denied", "7 permission_denied:"}},
	// A connection the local system forbade (a sandbox without network, a
	// firewall rule): connect(2)'s EACCES and EPERM as Node ("connect
	// EACCES 104.18.6.192:443") and Go ("connect: permission denied")
	// print them. The same connect is forbidden again until a human lets
	// it through.
	{id: "net.connect_forbidden.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"connect eacces", "connect eperm", "connect: permission denied", "connect: operation not permitted"}},
	{id: "python.peer_closed.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		any: []string{"peer closed connection", "incomplete chunked read", "server disconnected without sending a response",
			"remoteprotocolerror", "remotedisconnected"}},
	{id: "go.http2_goaway.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		any: []string{"goaway", "http2: client connection lost", "server closed idle connection"}},
	// Node errno codes and undici errors; bounded so "EPIPE" is not found in
	// a word.
	// undici's codes count only where they name a connection or a timeout
	// (undiciNetCodes); its other codes (UND_ERR_INVALID_ARG,
	// UND_ERR_NOT_SUPPORTED, UND_ERR_REQ_CONTENT_LENGTH_MISMATCH,
	// UND_ERR_RES_EXCEEDED_MAX_SIZE, UND_ERR_DESTROYED, …) are the client's
	// own refusals and say nothing a replay would change.
	{id: "node.errno.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.85,
		gate: append(append([]string{}, undiciNetCodes...), nodeErrnos...),
		match: func(s *scan) int {
			if i := anyBounded(s.low, nodeErrnos...); i >= 0 {
				return i
			}
			if i := s.index("fetch failed", false); i >= 0 { // wrapped: "fetch \n   failed"
				return i
			}
			for _, c := range undiciNetCodes {
				if i := strings.Index(s.low, c); i >= 0 {
					return i
				}
			}
			return -1
		}},
	// A browser's fetch() that got no response rejects with a TypeError whose
	// whole message is the engine's own words, no cause: "Failed to fetch"
	// (Chromium), "Load failed" (WebKit), "NetworkError when attempting to
	// fetch resource." (Gecko). Web clients print it bare ("TypeError: Load
	// failed") or after the URL they fetched (@google/generative-ai
	// request.ts: "[GoogleGenerativeAI Error]: Error fetching from <url>:
	// Failed to fetch"). An app's own "Failed to fetch models" is neither.
	{id: "browser.fetch_failed.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.75,
		gate:  browserFetchFailed,
		check: "the engine's message alone on its line, or right after the URL fetched",
		match: func(s *scan) int {
			for _, w := range browserFetchFailed {
				if i := bareFetchFailure(s.low, w); i >= 0 {
					return i
				}
			}
			return -1
		}},
	{id: "go.net.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		any: []string{"connection reset by peer", "broken pipe", "connection refused", "i/o timeout", "no such host",
			"network is unreachable", "tls handshake timeout", "context deadline exceeded", "use of closed network connection"}},
	// Go's net.OpError for a dial ("dial tcp 1.2.3.4:443: connect: …",
	// "dial tcp: lookup api.openai.com on 127.0.0.11:53: server
	// misbehaving"), and grpc-go's "transport: Error while dialing": the
	// connection was never made, whatever the cause after it, so nothing
	// was sent.
	{id: "go.dial.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		gate: []string{"dial tcp", "dial udp", "error while dialing"},
		match: func(s *scan) int {
			if i := s.index("error while dialing", false); i >= 0 {
				return i
			}
			for _, w := range []string{"dial tcp", "dial udp"} {
				for off, n := 0, 0; n < 8; n++ {
					i := strings.Index(s.low[off:], w)
					if i < 0 {
						break
					}
					i += off
					off = i + len(w)
					if (i == 0 || !isLetter(s.low[i-1])) && off < len(s.low) && (s.low[off] == ' ' || s.low[off] == ':' || isDigit(s.low[off])) {
						return i
					}
				}
			}
			return -1
		}},
	// The socket exception classes: Dart's dart:io SocketException
	// ("SocketException: Failed host lookup: 'api.openai.com' (OS Error: …,
	// errno = 7)", "… Connection refused") and Java's
	// java.net.SocketException ("Connection reset"): the connection, not the
	// request, failed.
	{id: "net.socket_exception.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		any: []string{"socketexception"}},
	{id: "python.net.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		any: []string{"apitimeouterror", "connecterror", "connecttimeout", "readtimeout", "connectionreseterror",
			"connection aborted", "max retries exceeded with url", "temporary failure in name resolution",
			"name or service not known", "read timed out", "connection timed out", "operation timed out"}},
	// A connection that could not be made, by the exception class or the
	// resolver's and socket layer's own message, in the other languages
	// agents, SDKs and wrappers are written in (catalogue transport.jsonl,
	// java-*, okhttp-*, dotnet-*, python-*, rust-*, dart-*, node-*): the
	// class names the failure whatever message follows, and nothing was
	// sent. Tried after the rules above, which keep their rows.
	// A socket error by its number (see osNetErrnos), in whatever language
	// its text is: structure, where the words are the OS's locale
	// (catalogue python-winerror-10061-zh, rust-os-error-10060-zh).
	{id: "net.os_errno.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		gate:  osErrnoForms,
		match: func(s *scan) int { return osNetErrno(s.low) }},
	{id: "net.exception_class.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		gate: append([]string{"failed to connect to "}, netExceptionWords...),
		match: func(s *scan) int {
			for _, w := range netExceptionWords {
				if i := s.index(w, false); i >= 0 {
					return i
				}
			}
			return okhttpFailedConnect(s.low)
		}},
}

// okhttpFailedConnect finds okhttp's ConnectException message, "Failed to
// connect to api.openai.com/104.18.6.192:443" (RealConnection: host, '/',
// address, port), not a sentence such as "Failed to connect to MCP server".
func okhttpFailedConnect(low string) int {
	const w = "failed to connect to "
	for off := 0; ; {
		i := strings.Index(low[off:], w)
		if i < 0 {
			return -1
		}
		i += off
		j := i + len(w)
		k := j
		for k < len(low) && k < j+200 && low[k] != ' ' && low[k] != '\n' {
			k++
		}
		if tok := low[j:k]; strings.Contains(tok, "/") && strings.LastIndexByte(tok, ':') > strings.IndexByte(tok, '/') {
			return i
		}
		off = j
	}
}

// osNetErrnos are the socket errors by number, whatever language the OS
// wrote their text in (a zh-CN Windows says "由于目标计算机积极拒绝，无法连接。"
// for WSAECONNREFUSED): the Winsock codes (learn.microsoft.com/windows/
// win32/winsock/windows-sockets-error-codes-2: WSAENETDOWN … WSAEHOSTUNREACH,
// WSAHOST_NOT_FOUND, WSATRY_AGAIN, WSANO_DATA), Linux's and macOS's
// ENETUNREACH, ECONNABORTED, ECONNRESET, ETIMEDOUT, ECONNREFUSED,
// EHOSTUNREACH, and getaddrinfo's negative EAI codes as Python prints them.
var osNetErrnos = []string{"10050", "10051", "10053", "10054", "10060", "10061", "10064", "10065", "11001", "11002", "11004",
	"101", "103", "104", "110", "111", "113", "51", "53", "54", "60", "61", "65", "-2", "-3", "-5"}

// osErrnoForms introduce an OS error number: Python's "[WinError 10061]"
// and "[Errno 111]", Rust's "(os error 10061)" (std::io::Error's Display).
var osErrnoForms = []string{"[winerror ", "[errno ", "(os error "}

// osNetErrno finds a socket error number in one of osErrnoForms, closed by
// ']' or ')'.
func osNetErrno(low string) int {
	for _, f := range osErrnoForms {
		for off, n := 0, 0; n < 16; n++ {
			i := strings.Index(low[off:], f)
			if i < 0 {
				break
			}
			i += off
			j := i + len(f)
			off = j
			k := j
			for k < len(low) && k < j+6 && (isDigit(low[k]) || low[k] == '-') {
				k++
			}
			if k == j || k >= len(low) || low[k] != ']' && low[k] != ')' {
				continue
			}
			for _, e := range osNetErrnos {
				if low[j:k] == e {
					return i
				}
			}
		}
	}
	return -1
}

// netExceptionWords: connection failures by class or OS message.
var netExceptionWords = []string{
	// Java, Kotlin, Android, okhttp, the JDK HttpClient, ktor, Netty.
	"unknownhostexception", "java.net.connectexception", "sockettimeoutexception", "noroutetohostexception",
	"httpconnecttimeoutexception", "httptimeoutexception", "unresolvedaddressexception", "connecttimeoutexception",
	"timeoutcancellationexception",
	// .NET (HttpRequestException's inner SocketException messages are the
	// Winsock texts: WSAECONNREFUSED, WSAETIMEDOUT, WSANO_DATA) and
	// HttpClient.Timeout.
	"actively refused it", "did not properly respond after a period of time", "no data of the requested type",
	"httpclient.timeout", "no such host is known",
	// Python: the resolver (socket.gaierror on macOS and Windows),
	// urllib3, aiohttp, the OpenAI and Anthropic SDKs' APIConnectionError.
	"nodename nor servname provided", "getaddrinfo failed", "gaierror", "failed to establish a new connection",
	"nameresolutionerror", "failed to resolve '", "cannot connect to host", "clientconnectorerror", "apiconnectionerror",
	"servertimeouterror", "timeout on reading data from socket",
	// botocore's EndpointConnectionError (the AWS SDKs for Bedrock).
	"could not connect to the endpoint url",
	// Bun's ConnectionRefused text.
	"was there a typo in the url or port",
	// The socket layer, in any language: EHOSTUNREACH's and
	// EADDRNOTAVAIL's texts.
	"no route to host", "cannot assign requested address",
	// Rust: hyper's connector ("dns error", getaddrinfo's "failed to lookup
	// address information", "tcp connect error").
	"dns error", "failed to lookup address information", "tcp connect error", "error trying to connect",
	// Dart: dart:io's HandshakeException ("Connection terminated during
	// handshake"; a refused certificate is tls.certificate.v1's),
	// dart:async's TimeoutException. Java's SSLHandshakeException when the
	// peer hung up ("Remote host terminated the handshake").
	"handshakeexception", "timeoutexception after", "remote host terminated the handshake",
	// curl's own error texts (curl.se/libcurl/c/libcurl-errors.html):
	// CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT.
	"could not resolve host", "couldn't connect to server",
	// CURLE_OPERATION_TIMEDOUT, CURLE_SSL_CONNECT_ERROR's dropped socket,
	// CURLE_HTTP2, CURLE_SEND_ERROR, CURLE_COULDNT_RESOLVE_PROXY.
	"timeout was reached", "ssl_error_syscall", "error in the http2 framing layer", "failed sending data to the peer",
	"could not resolve proxy",
	// curl's own text for Winsock's WSAECONNRESET (lib/strerror.c
	// get_winsock_error: "Connection was reset"), which curl on Windows and
	// curl_cffi print after the TLS library's handshake ("BoringSSL
	// SSL_connect: Connection was reset in connection to …:443").
	"connection was reset",
	// Winsock's WSAECONNABORTED text (Go's "wsasend: …", .NET).
	"established connection was aborted by the software in your host machine",
	// gRPC core's channel that could reach no backend (grpc-go's
	// "transport: Error while dialing" is go.dial.v1's).
	"failed to connect to all addresses",
	// Node: the request library's ESOCKETTIMEDOUT, undici's timeout
	// errors by name.
	"esockettimedout", "headers timeout error", "body timeout error", "headerstimeouterror", "bodytimeouterror",
}

// http2RefusedWords: HTTP_1_1_REQUIRED and INADEQUATE_SECURITY by name
// (Go, nghttp2) and by the h2 crate's description (src/frame/reason.rs).
var http2RefusedWords = []string{"http_1_1_required", "inadequate_security", "endpoint requires http/1.1",
	"security properties do not meet minimum requirements"}

// undiciNetCodes: undici's error codes (lib/core/errors.js) for a connection
// that failed or timed out: ConnectTimeoutError, HeadersTimeoutError,
// BodyTimeoutError, SocketError, a response body shorter than its
// Content-Length, the proxy's connection (ProxyConnectionError,
// SecureProxyConnectionError; a refused certificate under it is
// tls.certificate.v1's).
var undiciNetCodes = []string{"und_err_connect_timeout", "und_err_headers_timeout", "und_err_body_timeout", "und_err_socket",
	"und_err_res_content_length_mismatch", "und_err_prx_conn", "und_err_prx_tls"}

// tlsAlerts: the TLS alerts (RFC 8446 §6.2) by the name each stack gives
// them, after Go's "tls: " (crypto/tls alert.go alertText, printed as
// "remote error: tls: …" or "local error: tls: …") or after OpenSSL's
// "alert " (its reason strings: "sslv3 alert bad certificate", "tlsv1
// alert unknown ca", "tlsv13 alert certificate required"). refused: the
// handshake's configuration is refused (a certificate, a name, the
// versions, a client certificate, a middlebox rewriting the handshake);
// otherwise the connection broke under the record layer. Go's client-side
// version refusals are listed with them.
var tlsAlerts = withOpenSSLCodes([]tlsAlertName{
	{"bad certificate", "bad certificate", true}, {"unsupported certificate", "unsupported certificate", true},
	{"revoked certificate", "certificate revoked", true}, {"expired certificate", "certificate expired", true},
	{"unknown certificate", "certificate unknown", true}, {"unknown certificate authority", "unknown ca", true},
	{"access denied", "access denied", true}, {"protocol version not supported", "protocol version", true},
	{"insufficient security level", "insufficient security", true}, {"inappropriate fallback", "inappropriate fallback", true},
	{"missing extension", "missing extension", true}, {"unsupported extension", "unsupported extension", true},
	{"unrecognized name", "unrecognized name", true}, {"certificate required", "certificate required", true},
	{"no application protocol", "no application protocol", true}, {"illegal parameter", "illegal parameter", true},
	{"error decoding message", "decode error", true}, {"error decrypting message", "decrypt error", true},
	{"unknown psk identity", "unknown psk identity", true}, {"bad certificate status response", "bad certificate status response", true},
	{"certificate unobtainable", "certificate unobtainable", true}, {"encrypted client hello required", "ech required", true},
	{"handshake failure", "handshake failure", true},
	{"server selected unsupported protocol version", "", true}, {"no supported versions satisfy", "", true},
	{"internal error", "internal error", false}, {"record overflow", "record overflow", false},
	{"unexpected message", "unexpected message", false}, {"user canceled", "user canceled", false},
	{"decryption failed", "decryption failed", false}, {"no renegotiation", "no renegotiation", false},
})

type tlsAlertName struct {
	goName, opensslName string
	refused             bool
}

type tlsAlertEntry struct {
	tlsAlertName
	opensslCode string // opensslName with '_' for ' ', as in ERR_SSL_* codes
	rustlsName  string // rustls's AlertDescription, lowercased ("unknownca", "unrecognisedname")
}

func withOpenSSLCodes(as []tlsAlertName) []tlsAlertEntry {
	out := make([]tlsAlertEntry, len(as))
	for i, a := range as {
		out[i] = tlsAlertEntry{a, strings.ReplaceAll(a.opensslName, " ", "_"), strings.ReplaceAll(a.opensslName, " ", "")}
		if a.opensslName == "unrecognized name" {
			out[i].rustlsName = "unrecognisedname"
		}
	}
	return out
}

// tlsRefusedOther: refusals outside the alert notation: OpenSSL's
// unrecognized_name reason ("tlsv1 unrecognized name", no "alert"), and its
// record layer reading a peer that does not speak TLS (a plain-HTTP proxy
// port: ERR_SSL_PACKET_LENGTH_TOO_LONG).
var tlsRefusedOther = []string{"tlsv1 unrecognized name", "packet length too long",
	// rustls's Error::PeerIncompatible ("peer is incompatible:
	// Tls12NotOffered"): no version or suite both sides accept.
	"peer is incompatible",
	// Go's client reading a peer that is not a TLS server (crypto/tls
	// conn.go: "tls: oversized record received with length 20527", "tls:
	// unsupported SSLv2 handshake received"), a certificate it cannot
	// parse; OpenSSL's refusals of a server's old or weak TLS as Python's
	// ssl prints them (UNSAFE_LEGACY_RENEGOTIATION_DISABLED behind
	// TLS-inspecting proxies, DH_KEY_TOO_SMALL, UNSUPPORTED_PROTOCOL).
	"tls: oversized record received", "tls: unsupported sslv2 handshake received", "tls: failed to parse certificate",
	"unsafe legacy renegotiation disabled", "dh key too small", "[ssl: unsupported_protocol]"}

// tlsAlertPrefixes: what precedes an alert's name: Go's "tls: ", OpenSSL's
// "alert ", "alert_" in Node's code for the OpenSSL reason
// ('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA'), rustls's "received fatal alert: "
// (its Error::AlertReceived under reqwest and hyper: "received fatal
// alert: HandshakeFailure").
var tlsAlertPrefixes = []string{"tls: ", "alert ", "alert_", "received fatal alert: "}

// tlsAlert finds an alert of tlsAlerts whose refused is refused after one
// of tlsAlertPrefixes (the first 16 of each).
func tlsAlert(low string, refused bool) int {
	for _, p := range tlsAlertPrefixes {
		for off, n := 0, 0; n < 16; n++ {
			i := strings.Index(low[off:], p)
			if i < 0 {
				break
			}
			i += off
			j := i + len(p)
			off = j
			for _, a := range tlsAlerts {
				name := a.goName
				switch p {
				case "alert ":
					name = a.opensslName
				case "alert_":
					name = a.opensslCode
				case "received fatal alert: ":
					name = a.rustlsName
				}
				if a.refused == refused && name != "" && strings.HasPrefix(low[j:], name) {
					return i
				}
			}
		}
	}
	if refused {
		for _, w := range tlsRefusedOther {
			if i := strings.Index(low, w); i >= 0 {
				return i
			}
		}
	}
	return -1
}

// tlsCertVerifyWords: X509_V_ERR_* results by code (as Node's and Bun's
// err.code) and by OpenSSL's message.
var tlsCertVerifyWords = []string{
	"cert_not_yet_valid", "certificate is not yet valid", "cert_revoked", "certificate revoked",
	"unable_to_get_issuer_cert", "unable to get issuer certificate", "cert_untrusted", "certificate not trusted",
	"cert_rejected", "certificate rejected", "invalid_ca'", `invalid_ca"`, "invalid ca certificate", "cert_chain_too_long",
	"certificate chain too long", "hostname_mismatch", "ip_address_mismatch", "cert_signature_failure",
	"certificate signature failure", "invalid_purpose", "unsupported certificate purpose",
	"unable_to_decode_issuer_public_key", "unable to get certificate crl", "certificate verify failed",
	"serverfingerprintmismatch",
	// X509_verify_cert_error_string's default, a verification result the
	// library has no text for (OpenSSL and BoringSSL crypto/x509/x509_txt.c:
	// "unknown certificate verification error"), as Bun's fetch reports it.
	// Its code alone (UNKNOWN_CERTIFICATE_VERIFICATION_ERROR, as Claude Code
	// prints it after "Unable to connect to API") is left to the connection
	// rules.
	"unknown certificate verification error",
}

// schannelRefusedWords: SSPI and CryptoAPI statuses (winerror.h) for a
// certificate or credential Schannel refuses, by name, by code, and by the
// text FormatMessage gives them.
var schannelRefusedWords = []string{
	"sec_e_untrusted_root", "0x80090325", "sec_e_cert_expired", "0x80090328", "sec_e_cert_unknown", "0x80090327",
	"sec_e_wrong_principal", "0x80090322", "sec_e_no_credentials", "0x8009030e", "sec_e_unknown_credentials", "0x8009030d",
	"sec_e_algorithm_mismatch", "0x80090331", "sec_i_incomplete_credentials",
	"crypt_e_no_revocation_check", "0x80092012", "crypt_e_revocation_offline", "0x80092013", "crypt_e_revoked", "0x80092010",
	"cert_e_untrustedroot", "0x800b0109", "cert_e_expired", "0x800b0101", "cert_e_cn_no_match", "0x800b010f",
	"cert_e_chaining", "0x800b010a",
	"cert_trust_is_untrusted_root", "cert_trust_revocation_status_unknown", "cert_trust_is_revoked",
	"cert_trust_is_not_time_valid", "cert_trust_is_partial_chain", "cert_trust_is_offline_revocation",
	"the certificate chain was issued by an authority that is not trusted",
	"the revocation function was unable to check revocation",
	"no credentials are available in the security package",
	"the target principal name is incorrect",
	"the received certificate has expired",
	"terminated in a root certificate which is not trusted by the trust provider",
	"do not possess a common algorithm",
}

// requestUnusableWords: the clients' names for a URL, redirect chain or
// header they will not send.
var requestUnusableWords = []string{
	// undici fetch (lib/web/fetch/index.js, request.js) and Bun.
	"unknown scheme", "typeerror: bad port", "url scheme must be a http(s) scheme", "failed to parse url from", "err_invalid_url",
	"fetch() url is invalid", "protocol must be http:, https:", "redirect count exceeded",
	"request cannot be constructed from a url that includes credentials",
	// node-fetch, axios (follow-redirects).
	"only absolute urls are supported", "axioserror: unsupported protocol", "err_fr_too_many_redirects",
	"maximum number of redirects exceeded",
	// reqwest and hyper-util (Kind::Redirect, Kind::Builder; HttpConnector's
	// "invalid URL, scheme is not http").
	"error following redirect for url", "relative url without a base", "invalid url, scheme is not http",
	"the response redirected too many times", "redirect url in location header is invalid",
	// Node's http client (lib/internal/errors.js: ERR_INVALID_CHAR,
	// ERR_UNESCAPED_CHARACTERS, ERR_INVALID_PROTOCOL) and the Headers
	// class.
	"invalid character in header content", "is an invalid header value", "request path contains unescaped characters",
	"err_invalid_protocol", "err_invalid_http_token", "err_http_invalid_header_value",
	// Go (net/http transport.go, client.go; net/url; net).
	"unsupported protocol scheme", "http: no host in request url", "net/url: invalid", "missing port in address",
	"too many colons in address", "http: server gave http response to https client", "net/http: invalid header field value",
	"net/http: invalid header field name",
	// A TLS alert record (0x15 0x03) read as an HTTP response: an http://
	// URL sent to an HTTPS port (transport.go: malformed HTTP response %q).
	`malformed http response "\x15\x03`,
	"invalid header field value for",
	// httpx / httpcore, requests, urllib3, aiohttp.
	"unsupportedprotocol", "toomanyredirects", "localprotocolerror", "invalidschema", "missingschema",
	// requests' InvalidHeader (a key pasted with its newline), CPython's
	// http.client putheader ("Invalid header value b'…'") and InvalidURL.
	"return character(s) in header value", "invalid header value b'", "http.client.invalidurl",
	"no connection adapters were found", "requests.exceptions.invalidurl", "urlschemeunknown", "locationparseerror",
	"nonhttpurlclienterror", "invalidurlclienterror",
	// curl (libcurl-errors.html): CURLE_URL_MALFORMAT, CURLE_TOO_MANY_REDIRECTS,
	// CURLE_UNSUPPORTED_PROTOCOL ("Protocol \"htps\" not supported").
	"url rejected: malformed input", ") redirects followed", "curl: (1) protocol", "exceeded maximum allowed redirects", "responseerror('too many redirects')",
}

// impossibleHost finds a name lookup for a host that cannot exist: "http"
// or "https" as the host, what a URL with its scheme written twice
// resolves (Go's "lookup https: no such host", "lookup https on
// 127.0.0.53:53: …"; Node's "getaddrinfo ENOTFOUND https"; urllib3's
// NameResolutionError "Failed to resolve 'https'").
func impossibleHost(low string) int {
	for _, w := range []string{"lookup http", "enotfound http", "failed to resolve 'http"} {
		for off, n := 0, 0; n < 8; n++ {
			i := strings.Index(low[off:], w)
			if i < 0 {
				break
			}
			i += off
			j := i + len(w)
			off = j
			if j < len(low) && low[j] == 's' {
				j++
			}
			if j == len(low) || strings.IndexByte(":; \n\r\t'\"\\,)", low[j]) >= 0 {
				return i
			}
		}
	}
	return -1
}

// goRedirectLimit finds net/http's "stopped after 10 redirects"
// (client.go's default CheckRedirect).
func goRedirectLimit(low string) int {
	const w = "stopped after "
	i := strings.Index(low, w)
	if i < 0 {
		return -1
	}
	j := i + len(w)
	k := j
	for k < len(low) && isDigit(low[k]) {
		k++
	}
	if k > j && strings.HasPrefix(low[k:], " redirects") {
		return i
	}
	return -1
}

// proxyTunnelForms: the clients' words for a CONNECT a proxy answered with
// a status other than 200 (tunnel-agent's "tunneling socket could not be
// established, statusCode=407", under request and global-agent).
var proxyTunnelForms = []string{"proxy response (", "tunnel connection failed: ", "connect tunnel failed, response ",
	"tunneling socket could not be established, statuscode="}

// proxyTunnelStatus finds a proxyTunnelForms status: with transient, a
// 5xx, 408 or 429; without, any other 4xx.
func proxyTunnelStatus(low string, transient bool) int {
	for _, f := range proxyTunnelForms {
		i := strings.Index(low, f)
		if i < 0 {
			continue
		}
		j := i + len(f)
		if j+3 > len(low) || !isDigit(low[j]) || !isDigit(low[j+1]) || !isDigit(low[j+2]) || j+3 < len(low) && isDigit(low[j+3]) {
			continue
		}
		code := low[j : j+3]
		again := code[0] == '5' || code == "408" || code == "429"
		if transient && again || !transient && code[0] == '4' && !again {
			return i
		}
	}
	return -1
}

var nodeErrnos = []string{"econnreset", "etimedout", "econnrefused", "eai_again", "enotfound",
	"ehostunreach", "enetunreach", "epipe", "econnaborted", "socket hang up", "fetch failed",
	// The resolver's codes (nodejs.org/api/dns.html#error-codes: "queryA
	// ETIMEOUT api.openai.com", ESERVFAIL, EREFUSED) and a local port
	// shortage (EADDRNOTAVAIL).
	"etimeout", "eservfail", "erefused", "eaddrnotavail",
	// getaddrinfo's EAI_FAIL and ENODATA (the resolver failed, or the name
	// has no address today), a network interface down, a socket no longer
	// connected.
	"eai_fail", "enodata", "enetdown", "enotconn",
	// Node's own codes for a socket used after it closed, or closed before
	// it connected (lib/internal/errors.js: ERR_SOCKET_CLOSED "Socket is
	// closed", ERR_SOCKET_CLOSED_BEFORE_CONNECTION "Socket closed before
	// the connection was established"), as Claude Code's connectivity
	// check prints the code alone ("Failed to connect to
	// api.anthropic.com: ERR_SOCKET_CLOSED").
	"err_socket_closed", "err_socket_closed_before_connection"}

// transportLostRules: the connection broke while a response was being read
// (undici "terminated" / "other side closed", HTTP/2 stream resets, a body cut
// short). Tried before the generic network rules, which they would match too.
var transportLostRules = []rule{
	{id: "node.terminated.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		gate:  []string{"terminated"},
		match: func(s *scan) int { return bareWord(s.low, "terminated") }},
	// undici's fetch ended by a dropped socket, by its structure whatever
	// precedes it: the error class and message "TypeError: terminated",
	// or fetch's abort frame in its stack (lib/web/fetch: terminate() →
	// onAborted → new TypeError('terminated', { cause })).
	{id: "node.undici_terminated.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		any: []string{"typeerror: terminated", "at fetch.onaborted (node:internal/deps/undici"}},
	// JavaScriptCore's JSON.parse on input that ended early ("JSON Parse
	// error: Unexpected EOF", Bun's wording; WebKit
	// Source/JavaScriptCore/runtime/LiteralParser.cpp; catalogue
	// bun-json-parse-unexpected-eof) is no cut stream by itself: an empty
	// body, NDJSON where JSON was expected, a truncated file. Its
	// "unexpected EOF" is not read as one; other evidence in the text
	// still decides.
	{id: "net.stream_cut.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		none: []string{"json parse error: unexpected eof"},
		any: []string{"other side closed", "premature close", "err_stream_premature_close", "nghttp2_", "err_http2_",
			"stream error: stream id", "connection closed before message completed", "incompleteread", "connection broken:",
			"serverdisconnectederror", "server disconnected", "unexpected eof", "transport connection broken",
			// undici's SocketError, whatever its message ("SocketError: closed",
			// "SocketError: other side closed"; lib/dispatcher/client-h1.js).
			"socketerror: ",
			// reqwest's Kind::Body, a request or response body that broke
			// off mid-transfer ("request or response body error", src/error.rs
			// Display; catalogue reqwest-body-error): the AWS SDK for Rust
			// and Kiro CLI print it after "dispatch failure (io error): ".
			"request or response body error",
			// A response cut short in other languages (catalogue
			// okhttp-unexpected-end-of-stream, okhttp-stream-reset,
			// dotnet-response-ended, dotnet-forcibly-closed,
			// python-ssl-eof, hyper-incomplete-message,
			// dart-connection-closed-header): okhttp, .NET's
			// HttpIOException and WSAECONNRESET text, Python's ssl EOF,
			// hyper's IncompleteMessage, Dart's http ClientException.
			"unexpected end of stream on", "streamresetexception", "the response ended prematurely",
			"forcibly closed by the remote host", "eof occurred in violation of protocol", "incompletemessage",
			// WSAECONNRESET's text cut before "by the remote host" (a Go
			// "wsarecv: An existing connection was forcibly closed", as
			// pasted; catalogue go-wsarecv-forcibly-closed).
			"an existing connection was forcibly closed",
			"connection closed before full header was received", "connection closed while receiving data",
			// .NET's SslStream when the peer drops the handshake, and curl's
			// CURLE_GOT_NOTHING, CURLE_HTTP2_STREAM, CURLE_PARTIAL_FILE,
			// CURLE_RECV_ERROR (catalogue dotnet-remote-party-closed,
			// curl-52/92/18/56).
			"remote party has closed the transport stream", "empty reply from server", "was not closed cleanly",
			"transfer closed with outstanding read data remaining", "recv failure:",
			// aiohttp's body cut short (ClientPayloadError), okio's
			// EOFException when the connection closed inside a header line.
			"response payload is not completed", `\n not found: limit=`,
			// undici's HTTP/2 client (lib/dispatcher/client-h2.js
			// InformationalError texts) and its idle-socket reaper; Go's
			// http2 client conn that was lost or could not be made
			// (x/net/http2 transport.go), its ConnectionError
			// ("connection error: PROTOCOL_ERROR"); grpc's stream reset and
			// draining connection; Python's ssl closed mid-read.
			"http/2: stream closed before", "http/2: stream errored before", "http/2: stream half-closed",
			`http/2: "stream error" received`, `http/2: "stream timeout after`, `http/2: "frameerror" received`,
			`http/2: "ping" errored`, "socket idle timeout", "informationalerror: reset",
			"http2: client conn could not be established", "http2: client conn is closed", "http2: client conn not usable",
			"cannot rewind body after connection loss", "connection error: protocol_error", "connection error: internal_error",
			"stream terminated by rst_stream", "the connection is draining", "error reading from server: eof",
			"sslzeroreturnerror", "tls/ssl connection has been closed",
			// hyper's pooled connection that closed before use
			// (Canceled "connection was not ready", ChannelClosed).
			"connection was not ready", "hyper::error(channelclosed",
			// grpc-go's stream that ended without its trailers, gRPC core's
			// "Stream removed" and "Received RST_STREAM with error code 2"
			// (grpcio).
			"server closed the stream without sending trailers", ": stream removed", `"stream removed"`, "received rst_stream with error code",
			// urllib3's chunked read cut short; httpx's WriteError without
			// a message.
			"response ended prematurely", "httpx.writeerror",
			// oh-my-pi's guard on a chat-completions stream that reached EOF
			// with neither a finish_reason nor [DONE]
			// (packages/ai/src/providers/openai-completions.ts; catalogue
			// agents-more omp-completions-incomplete-stream).
			"stream closed before a finish_reason"}},
	// Node's http client ends a response whose socket closed under it with
	// connResetException('aborted') (lib/_http_client.js
	// socketCloseListener; lib/internal/errors.js, code ECONNRESET): "Error:
	// aborted" over that frame. Before a response the same frame says
	// "socket hang up" (node.errno.v1's network failure).
	{id: "node.response_aborted.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.8,
		all: []string{"error: aborted", "at connresetexception ("}},
	// A dropped connection in an error's own words ("Connection closed.",
	// "Network error"), not in prose.
	{id: "net.connection_closed_text.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.7,
		gate:  connectionClosedWords,
		check: checkErrorText,
		match: func(s *scan) int { return s.errorText(connectionClosedWords...) }},
	// A WebSocket to the provider that went away mid-turn (Codex's
	// Responses WebSocket, Realtime): Node's ws (lib/websocket.js: "WebSocket
	// is not open: readyState 3 (CLOSED)" / "2 (CLOSING)" on a send after the
	// drop, "WebSocket was closed before the connection was established"),
	// Python's websockets (ConnectionClosedError: "no close frame received
	// or sent", "sent 1011 (internal error) keepalive ping timeout"), and a
	// client's own "websocket is closed" / "WebSocket closed before …".
	// readyState 0 (CONNECTING) is a send too early, not a drop.
	{id: "net.websocket_closed.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.75,
		gate:  append(slices.Clone(websocketLibClosed), websocketClientClosed...),
		check: checkErrorText,
		match: func(s *scan) int {
			if i := anyBounded(s.low, websocketLibClosed...); i >= 0 {
				return i
			}
			return s.errorText(websocketClientClosed...)
		}},
	// Proxies in front of a provider (Envoy, nginx): the upstream is away.
	// Gateways say it in so many words too ("Upstream unavailable",
	// seermartech's 50004).
	{id: "proxy.upstream.v1", band: bandTransport, code: "unavailable", class: ClassTransient, conf: 0.75,
		any: []string{"upstream connect error", "no healthy upstream", "upstream request timeout", "upstream unavailable",
			"upstream service unavailable"}},
	// Go's bare EOF on a request: `Post "https://…": EOF` (url.Error since
	// Go 1.14), `Post https://…: EOF` before it quoted the URL; also as the
	// last thing in a quoted log value (log/slog's TextHandler quotes an
	// error with blanks: err="Post \"https://…\": EOF").
	{id: "go.eof.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		gate: []string{`": eof`, ": eof"},
		match: func(s *scan) int {
			i := strings.LastIndex(s.low, ": eof")
			if i < 0 {
				return -1
			}
			end := i + len(": eof")
			if end != len(s.low) && s.low[end] != '\n' && s.low[end] != '\r' && !goQuotedValueEnd(s.low[end:]) {
				return -1
			}
			if i > 0 && s.low[i-1] == '"' {
				return i - 1
			}
			if goURLErrorLine(s.low, i) {
				return i
			}
			return -1
		}},
	// Claude Code's stream watchdog: "Stream idle timeout - no chunks
	// received" (2.1.100), "... - partial response received"; the stream
	// stalled, a new request resumes.
	{id: "claude_code.stream_idle.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		any: []string{"stream idle timeout"}},
	// oh-my-pi's stream watchdogs (packages/ai/src/providers/
	// register-builtins.ts LAZY_STREAM_IDLE_TIMEOUT_ERROR and
	// LAZY_STREAM_FIRST_EVENT_TIMEOUT_ERROR, the same words per provider in
	// anthropic.ts, openai-completions.ts, openai-codex-responses.ts):
	// "<Provider> stream stalled while waiting for the next event", "…
	// timed out while waiting for the first event". No event came within
	// the idle window and the client aborted the stream; oh-my-pi's own
	// session retry replays it (catalogue agents-more omp-stream-*).
	{id: "omp.stream_watchdog.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		any: []string{"stream stalled while waiting for the next event", "stream timed out while waiting for the first event"}},
	// Kun's stream watchdog (kun/src/adapters/model/compat-model-client-stream.ts:
	// "model stream stalled for ${idleTimeoutMs}ms without data", code
	// stream_idle_timeout, failure category timeout, failoverAllowed): no
	// chunk came within the idle window and the client cancelled the
	// reader; a new request may go through (catalogue agents-more
	// kun-model-stream-stalled).
	{id: "kun.stream_stalled.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		all: []string{"stream stalled for ", "without data"}},
	// openclaw's watchdog on a CLI backend (claude-cli, codex-cli) that went
	// silent (src/agents/cli-runner/execute.ts): it logs "cli watchdog
	// timeout: provider=… model=… noOutputTimeoutMs=… pid=…", kills the
	// child and fails over with "CLI produced no output for Ns and was
	// terminated." (reason timeout, code cli_no_output_timeout, which
	// openclaw itself retries when the child showed no activity). The turn
	// was cut, not refused: a new run may go through (catalogue agents-more
	// openclaw-cli-watchdog-timeout, openclaw-cli-no-output-terminated).
	{id: "openclaw.cli_watchdog.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.8,
		any: []string{"cli watchdog timeout:", "cli produced no output for"}},
	// Qwen Code's own timeout for a request it gave up on
	// (packages/core/src/core/openaiContentGenerator/errorHandler.ts,
	// pipeline.ts): "Streaming request timeout after 46s. Try reducing input
	// length or increasing timeout in config." and its troubleshooting list,
	// "Streaming setup timeout after 6s. …", "Request timeout after …". The
	// provider did not answer in time; the advice is the CLI's, not a limit
	// the request broke.
	{id: "qwen.request_timeout.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.85,
		any: []string{"try reducing input length or increasing timeout in config", "streaming setup timeout after",
			"streaming request timeout after", "streaming timeout troubleshooting:", "streaming setup timeout troubleshooting:"}},
	// A stream cut mid-object: js-genai's "Incomplete JSON segment at the
	// end" (Gemini CLI retries it as INCOMPLETE_JSON).
	{id: "genai.incomplete_json.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.8,
		any: []string{"incomplete json segment"}},
	// The same cut in the older @google/generative-ai (generative-ai-js
	// src/requests/stream-reader.ts getResponseStream, at 8b14949a): the
	// stream ended with text left that no "data: " line completed ("Failed
	// to parse stream"), or reading the body rejected ("Error reading from
	// the stream"), both as GoogleGenerativeAIError with its "[GoogleGenerativeAI
	// Error]: " prefix (src/errors.ts). Roo Code and cline print it as is. An
	// abort there is GoogleGenerativeAIAbortError ("Request aborted when
	// reading from the stream"), not this (catalogue google-api
	// genai-js-failed-to-parse-stream, genai-js-error-reading-stream).
	{id: "genai_js.stream_cut.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.8,
		any: []string{"[googlegenerativeai error]: failed to parse stream", "[googlegenerativeai error]: error reading from the stream"}},
	// opencode's idle timer on a provider stream (session/message-v2.ts: a
	// TimeoutError becomes "Idle timeout: no data received from provider",
	// retryable): the provider went quiet, a new request resumes.
	{id: "opencode.idle_timeout.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		any: []string{"no data received from provider"}},
	// A relay's or agent's own timer on the upstream, named by what it was
	// waiting for: "<upstream|transport|response|prelude|stream|websocket|
	// stall> timed out" or "… timeout" as the outcome (opencodex's "live
	// upstream timed out", "Cursor transport timed out before first
	// response", "CCA image response timed out during body read"; 9router's
	// "Upstream timeout"; catalogue relays opencodex-*, 9router-*). The
	// provider did not answer in time, a new request may. "timeout" counts
	// only as the last word of a clause (end, punctuation, or " after" /
	// " error" / " exceeded"), so a setting ("stream timeout set to 300s",
	// "upstream timeout=60s") is not it. Generic band: a status in the same
	// text (Claude Code's "API Error: 504 {… "Stream timeout"}") decides first.
	{id: "net.subject_timed_out.v1", band: bandGeneric, code: "network", class: ClassTransient, conf: 0.75,
		gate: []string{"timed out", "timeout"},
		match: func(s *scan) int {
			for _, subj := range timeoutSubjects {
				for _, tail := range []string{" timed out", " timeout"} {
					w := subj + tail
					for i := range occurrences(s.low, w, 8) {
						if i > 0 && isLetter(s.low[i-1]) {
							continue
						}
						if tail == " timed out" || timeoutEndsClause(s.low[i+len(w):]) {
							return i
						}
					}
				}
			}
			return -1
		}},
	// The disk is full (ENOSPC; Gemini CLI's fsErrorMessages.ts "No space
	// left on device. Free up some disk space and try again.", which its
	// non-interactive mode makes fatal): nothing to replay until space is freed.
	{id: "os.no_space.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"no space left on device", "enospc"}},
	// axios (bundled in Claude Code and others): "timeout of 5000ms exceeded".
	{id: "axios.timeout.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		gate: []string{"timeout of "},
		match: func(s *scan) int {
			i := strings.Index(s.low, "timeout of ")
			if i < 0 {
				return -1
			}
			j := i + len("timeout of ")
			k := j
			for k < len(s.low) && isDigit(s.low[k]) {
				k++
			}
			if k > j && strings.HasPrefix(s.low[k:], "ms exceeded") {
				return i
			}
			return -1
		}},
	{id: "net.connection_words.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		any: []string{"client network socket disconnected", "socket connection was closed unexpectedly",
			"unable to connect. is the computer able to access the url", "connectionrefused", "failedtoopensocket",
			"the operation timed out", "timeout awaiting response headers", "client.timeout exceeded", "bad record mac",
			"pooltimeout", "error decoding response body", "connection reset by server", "connection reset - ", "connection timeout", "httpx.readerror", "httpcore.readerror",
			"operation was aborted due to timeout", "deadline exceeded", "while waiting for connection",
			"cannot connect to api", "connect timeout error", "not connected to the internet", "check your network connection",
			"net::err_", "- connection error", "408 request timeout",
			// reqwest's send failure is "error sending request" and, unless
			// the url was stripped (without_url), " for url (…)" after it:
			// Codex's "Connection failed: error sending request".
			"error sending request",
			// The AWS SDK for Rust's connector error by its Debug form
			// (aws-smithy-runtime-api src/client/result.rs: ConnectorError {
			// kind: Timeout | Io, … }), inside DispatchFailure: a timeout or a
			// socket error before any response (kind User and Other are not
			// read: a request the client refused, or a cause named elsewhere).
			"connectorerror { kind: timeout", "connectorerror { kind: io",
			// Claude Code's words for a request whose cause is ETIMEDOUT.
			"internet connection is unreliable",
			// Bun's fetch (FetchTasklet): a response its parser could not
			// read, an unexpected end, its catch-all of older versions;
			// gRPC's UNAVAILABLE by name (grpc-go's "code = Unavailable",
			// grpcio's StatusCode.UNAVAILABLE); Python's socket timeout
			// and asyncio's.
			"malformed_http_response", "unexpectedeof fetching", "fetch() failed. for more information",
			"code = unavailable desc", "statuscode.unavailable", "timeouterror: timed out", "asyncio.exceptions.timeouterror",
			// node-fetch's own timeout; https-proxy-agent's proxy that hung
			// up before answering the CONNECT.
			"network timeout at: ", "proxy connection ended before receiving connect response",
			// A Codex client's Responses WebSocket that is gone before or
			// while it sends: oh-my-pi's "Codex websocket transport error:
			// websocket connection is unavailable" and "… websocket closed
			// before open" (its SSE fallback is a retry of the same request).
			"websocket transport error", "websocket connection is unavailable", "websocket closed before open",
			// ureq 2's connect failure (src/stream.rs: ErrorKind::ConnectionFailed
			// with msg "Connect error", shown "<url>: Connection Failed: Connect
			// error[: <io error>]"; catalogue transport ureq-connect-error), as
			// its callers print it with or without the io error after it.
			"connection failed: connect error",
			// tokio-rustls's io::Error (UnexpectedEof) when the peer closes
			// the socket before the TLS handshake completes (src/common/mod.rs
			// complete_io: "tls handshake eof"; catalogue transport
			// tokio-rustls-tls-handshake-eof), under hyper-rustls, reqwest and
			// tokio-tungstenite: Codex's Responses WebSocket and HTTPS
			// connects print it as "IO error: tls handshake eof".
			"tls handshake eof",
			// The AI SDK's APICallError around Bun's refused or failed
			// connect (Bun: "Unable to connect. Is the computer able to
			// access the url?", code ConnectionRefused), as opencode's
			// session log prints its first sentence.
			"apicallerror: unable to connect"}},
}

var (
	websocketLibClosed = []string{"websocket is not open: readystate 3", "websocket is not open: readystate 2",
		"websocket was closed before the connection was established", "no close frame received or sent", "keepalive ping timeout",
		// A proxy's own words for a stream cut before its terminal event
		// (response.completed and the like).
		"closed before terminal event"}
	websocketClientClosed = []string{"websocket is closed", "websocket closed before"}
)

var connectionClosedWords = []string{"connection closed", "connection lost", "connection dropped", "network error", "socket closed"}

const geckoFetchFailed = "networkerror when attempting to fetch resource"

var browserFetchFailed = []string{"failed to fetch", "load failed", geckoFetchFailed}

// bareFetchFailure finds a browser's fetch message w alone on its line
// (bareWord), or ending the line right after the URL it was fetching
// ("… from https://…?alt=sse: failed to fetch"). "load failed" alone is
// common enough in other words ("Error: load failed"), so bare it counts
// only as WebKit's TypeError.
func bareFetchFailure(low, w string) int {
	// Gecko's words are its own, never an app's: after a label's ": " they
	// are the engine's message whatever the app wraps around it ("A network
	// error occurred, …: NetworkError when attempting to fetch resource
	// (unk)", a chat front end's banner).
	if w == geckoFetchFailed {
		if i := strings.Index(low, ": "+geckoFetchFailed); i >= 0 {
			return i + 2
		}
	}
	if w != "load failed" {
		if i := bareWord(low, w); i >= 0 {
			return i
		}
	} else if i := strings.Index(low, "typeerror: load failed"); i >= 0 {
		if bareRest(low[i+len("typeerror: load failed"):lineEnd(low, i)], false) {
			return i
		}
	}
	for off := 0; ; {
		i := strings.Index(low[off:], ": "+w)
		if i < 0 {
			return -1
		}
		i += off
		off = i + 2 + len(w)
		if bareRest(low[off:lineEnd(low, off)], false) && goURLErrorLine(low, i) {
			return i + 2
		}
	}
}

// lineEnd is the offset of the newline ending the line at i, or len(low).
func lineEnd(low string, i int) int {
	if e := strings.IndexByte(low[i:], '\n'); e >= 0 {
		return i + e
	}
	return len(low)
}

// bareWord finds w where its line says nothing else: "terminated",
// "[API Error: terminated]", "TypeError: terminated", {"details":"terminated"}.
func bareWord(low, w string) int {
	for off := 0; ; {
		i := strings.Index(low[off:], w)
		if i < 0 {
			return -1
		}
		i += off
		off = i + len(w)
		ls := strings.LastIndexByte(low[:i], '\n') + 1
		le := strings.IndexByte(low[i:], '\n')
		if le < 0 {
			le = len(low)
		} else {
			le += i
		}
		if bareRest(low[ls:i], true) && bareRest(low[i+len(w):le], false) {
			return i
		}
		off = max(off, le) // one look per line keeps it linear
	}
}

// bareRest: only punctuation and an error label ("api error:", "typeerror:",
// "error:", a JSON key) around the word. JSON pasted through a rich-text
// editor or an issue form may carry typographic quotes for ASCII double and
// single quotes (U+201C/U+201D, U+2018/U+2019; see curlyQuoteAt): an ACP
// error's data {“details”:“terminated”} is the same bare word as
// {"details":"terminated"}.
func bareRest(s string, before bool) bool {
	s = strings.Trim(s, " \t\r[]{}\"'\\:,.“”‘’")
	if s == "" {
		return true
	}
	if !before {
		return trailingIDs(s)
	}
	// A log line's header before the label: "<time> [ERROR][deepseek]
	// Provider error: terminated" is the label and the word.
	if j := strings.LastIndexByte(s, ']'); j >= 0 {
		s = strings.TrimLeft(s[j+1:], " \t")
	}
	// The status a relay answered with between the label and the word, as
	// @anthropic-ai/sdk puts a body's message after it (`${status}
	// ${message}`): "API Error: 500 terminated" is undici's cut stream
	// passed on with a 500.
	if n := len(s); n > 4 && s[n-4] == ' ' && s[n-3] >= '1' && s[n-3] <= '5' && isDigit(s[n-2]) && isDigit(s[n-1]) {
		s = strings.TrimRight(s[:n-4], " \t:")
	}
	// Cherry Studio's error detail, copied in zh-CN: "错误名称: <name>\n错误信息:
	// <message>\n堆栈信息: <stack>" (components/ErrorDetailModal BuiltinError's
	// t('error.name') / t('error.message') / t('error.stack') labels); the
	// message line is the label and the word.
	for _, p := range []string{"api error", "typeerror", "error", "details", "message", "internal error", "错误信息"} {
		if strings.HasSuffix(s, p) && len(s) <= len(p)+24 {
			return true
		}
	}
	return false
}

// trailingIDs: s (after a bare word) holds only the ids a client puts
// after an error for its support desk: "(Request ID: …)", "(request_id:
// req_…)", "(Conversation ID: …)", "(error ID: …)", one or more.
func trailingIDs(s string) bool {
	for s = strings.TrimSpace(s); s != ""; s = strings.Trim(s, " \t.,") {
		inParens := s[0] == '('
		if inParens {
			s = s[1:]
		}
		k := strings.Index(s, "id")
		if k < 0 || k > 14 || strings.Trim(s[:k], "abcdefghijklmnopqrstuvwxyz _-") != "" {
			return false
		}
		v, ok := strings.CutPrefix(strings.TrimLeft(s[k+2:], " "), ":")
		if !ok {
			return false
		}
		if !inParens {
			v = strings.TrimSpace(v)
			return v != "" && !strings.ContainsAny(v, " \t")
		}
		end := strings.IndexByte(v, ')')
		if end < 0 {
			return false
		}
		s = v[end+1:]
	}
	return true
}

// goURLErrorLine: the line ending at i is Go's unquoted url.Error (before Go
// 1.14, fmt "%s %s: %s"): an HTTP method, a space, then an http(s) URL with
// no blank before i; or a client's own log of the fetch that names the URL
// last and then the error ("error fetching http://…/: EOF", redwood's proxy
// log): the word before ": EOF" is the URL itself.
func goURLErrorLine(low string, i int) bool {
	start := strings.LastIndexByte(low[:i], '\n') + 1
	line := strings.TrimLeft(low[start:i], " \t")
	for _, m := range []string{"get ", "post ", "put ", "patch ", "delete ", "head "} {
		if u, ok := strings.CutPrefix(line, m); ok {
			return (strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) && !strings.ContainsAny(u, " \t")
		}
	}
	u := line[strings.LastIndexAny(line, " \t")+1:]
	return u != line && len(u) > len("https://") && (strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://"))
}

// goQuotedValueEnd: rest opens with the quote that closes a log value and
// then ends the line (or the text): `…: EOF"` in log/slog or logfmt output,
// `{"error":"Post …: EOF"}` in JSON.
func goQuotedValueEnd(rest string) bool {
	if !strings.HasPrefix(rest, `"`) {
		return false
	}
	// The string may close a JSON value ({"error":"Post …: EOF"}, then
	// "}", "]" or the next field).
	rest = strings.TrimLeft(rest[1:], " \t}])")
	return rest == "" || rest[0] == '\n' || rest[0] == '\r' || rest[0] == ','
}

// timeoutSubjects are the things a relay's or agent's timer waits on whose
// timing out is the upstream's silence, not a setting or a local tool.
var timeoutSubjects = []string{"upstream", "transport", "response", "prelude", "stall", "stream", "websocket"}

// timeoutEndsClause reports whether the text after a "… timeout" ends the
// clause: nothing, punctuation or a quote, or " after" / " error" /
// " exceeded" (a value or " set to" after it is a setting).
func timeoutEndsClause(rest string) bool {
	if rest == "" {
		return true
	}
	switch rest[0] {
	case '.', ',', ';', '!', ')', '"', '\'', '\n', '\r', ']':
		return true
	}
	for _, w := range []string{" after", " error", " exceeded"} {
		if strings.HasPrefix(rest, w) {
			return true
		}
	}
	return false
}
