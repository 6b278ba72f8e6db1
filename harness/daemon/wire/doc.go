// Package wire is what the daemon (harness/daemon) and its client (harness/daemon/client)
// share on the socket: the protocol version and headers, the build identity they compare, the
// stream frames and the codec that puts a method's request (harness/api's table) into a route,
// a query and a body and takes it out again.
package wire
