package api

import (
	"reflect"
	"strings"
)

// Kind says how a method's answer travels.
type Kind int

const (
	// JSON answers with one JSON value (Resp) and an error object on failure.
	JSON Kind = iota
	// Stream answers with NDJSON lines, each a StreamFrame, ending with a result or an error.
	Stream
	// Raw answers with the bytes of a file or an output (application/octet-stream).
	Raw
	// Upgrade switches the connection to another protocol (HTTP 101).
	Upgrade
)

// In says where a parameter travels.
type In string

// Where parameters travel.
const (
	InPath  In = "path"
	InQuery In = "query"
)

// Param binds a path or query parameter of a method to a field of its request.
type Param struct {
	// Name is the parameter's name in the route (a {name} of the path) or the query.
	Name string
	In   In
	// Field is the Go field of the request that holds it (a dotted path into nested
	// structs); its kind is string, bool, uint64 or *uint64 (sent only when set).
	Field string
}

// Method is one method of the API: its route, its request and response types (by Go type) and
// a line of doc. The daemon's handlers, its client and the OpenAPI document are built from it.
type Method[Req, Resp any] struct {
	// Name is the method's name (the api.Client method it serves, or the stream's name).
	Name string
	// Verb and Path are the route: Path is a net/http pattern with {name} wildcards.
	Verb, Path string
	// Doc says in one line what the method does.
	Doc string
	// Params binds the path's wildcards and the query's parameters to fields of Req.
	Params []Param
	// Body says Req travels as the JSON body (path parameters then override its fields).
	Body bool
	// Kind says how the answer travels (default JSON).
	Kind Kind
	// Handshake marks the methods that answer clients of any protocol version.
	Handshake bool
}

// Endpoint describes a method without its type parameters.
type Endpoint struct {
	Name, Verb, Path, Doc string
	Params                []Param
	Body                  bool
	Kind                  Kind
	Handshake             bool
	// Request and Response are the Go types of Req and Resp.
	Request, Response reflect.Type
}

// Pattern is the route as net/http's ServeMux takes it ("GET /v1/sessions").
func (e Endpoint) Pattern() string { return e.Verb + " " + e.Path }

// Endpoint describes m.
func (m Method[Req, Resp]) Endpoint() Endpoint {
	return Endpoint{Name: m.Name, Verb: m.Verb, Path: m.Path, Doc: m.Doc, Params: m.Params, Body: m.Body,
		Kind: m.Kind, Handshake: m.Handshake,
		Request: reflect.TypeFor[Req](), Response: reflect.TypeFor[Resp]()}
}

// Pattern is the route as net/http's ServeMux takes it.
func (m Method[Req, Resp]) Pattern() string { return m.Verb + " " + m.Path }

// endpoints lists every method in the order declared (see declare).
var endpoints []Endpoint

// declare adds a method to the list Endpoints returns.
func declare[Req, Resp any](m Method[Req, Resp]) Method[Req, Resp] {
	endpoints = append(endpoints, m.Endpoint())
	return m
}

// Endpoints lists every method of the API, in the order the table declares them.
func Endpoints() []Endpoint { return append([]Endpoint(nil), endpoints...) }

// path binds the path wildcard name to field.
func path(name, field string) Param { return Param{Name: name, In: InPath, Field: field} }

// query binds the query parameter name to field.
func query(name, field string) Param { return Param{Name: name, In: InQuery, Field: field} }

// FieldByPath returns the field of struct type t that a dotted Go field path names.
func FieldByPath(t reflect.Type, field string) (reflect.StructField, bool) {
	var sf reflect.StructField
	for part := range strings.SplitSeq(field, ".") {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return sf, false
		}
		f, ok := t.FieldByName(part)
		if !ok {
			return sf, false
		}
		sf, t = f, f.Type
	}
	return sf, true
}
