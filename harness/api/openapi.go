package api

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"
)

// OpenAPIVersion is the version of the OpenAPI specification OpenAPIDocument follows.
const OpenAPIVersion = "3.1.0"

// OpenAPIDocument describes the API as an OpenAPI 3.1 document built from the method table:
// every route with its parameters, its JSON body and its answer, the schemas derived from the
// request and response types' json tags. The daemon serves it as GET /v1/openapi.json.
func OpenAPIDocument() (map[string]any, error) {
	sc := &schemas{defs: map[string]any{}, names: map[reflect.Type]string{}}
	paths := map[string]any{}
	ids := map[string]bool{}
	for _, e := range Endpoints() {
		if ids[e.Name] {
			return nil, fmt.Errorf("openapi: two methods named %s", e.Name)
		}
		ids[e.Name] = true
		item, _ := paths[e.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[e.Path] = item
		}
		verb := strings.ToLower(e.Verb)
		if item[verb] != nil {
			return nil, fmt.Errorf("openapi: %s declared twice", e.Pattern())
		}
		op, err := sc.operation(e)
		if err != nil {
			return nil, err
		}
		item[verb] = op
	}
	return map[string]any{
		"openapi": OpenAPIVersion,
		"info": map[string]any{
			"title":   "exo daemon API",
			"version": "v1",
			"description": "The harness API exo's daemon serves over HTTP on its unix socket " +
				"($XDG_RUNTIME_DIR/exo or $TMPDIR/exo-UID). Requests carry X-Exo-Protocol, X-Exo-Build and " +
				"X-Exo-Built; a client of another protocol is refused except by the handshake (x-exo-handshake). " +
				"Errors answer with an object {code, error} whose code keeps the error's identity.",
		},
		"paths":      paths,
		"components": map[string]any{"schemas": sc.defs},
	}, nil
}

// operation describes one method.
func (sc *schemas) operation(e Endpoint) (map[string]any, error) {
	op := map[string]any{"operationId": e.Name, "summary": e.Doc}
	if e.Handshake {
		op["x-exo-handshake"] = true
	}
	var params []any
	for _, p := range e.Params {
		f, ok := FieldByPath(e.Request, p.Field)
		if !ok {
			return nil, fmt.Errorf("openapi: %s: no field %s in %s", e.Name, p.Field, e.Request)
		}
		t := f.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		params = append(params, map[string]any{"name": p.Name, "in": string(p.In), "required": p.In == InPath, "schema": sc.of(t)})
	}
	if params != nil {
		op["parameters"] = params
	}
	if e.Body {
		op["requestBody"] = map[string]any{"required": true,
			"content": map[string]any{"application/json": map[string]any{"schema": sc.of(e.Request)}}}
	}
	responses := map[string]any{"default": map[string]any{"description": "An error: its code and message.",
		"content": map[string]any{"application/json": map[string]any{"schema": sc.of(reflect.TypeFor[RemoteError]())}}}}
	switch e.Kind {
	case JSON:
		responses["200"] = map[string]any{"description": "The answer.",
			"content": map[string]any{"application/json": map[string]any{"schema": sc.of(e.Response)}}}
	case Stream:
		responses["200"] = map[string]any{"description": "A stream of NDJSON lines, one frame each.",
			"content": map[string]any{"application/x-ndjson": map[string]any{"schema": sc.of(e.Response)}}}
	case Raw:
		responses["200"] = map[string]any{"description": "The bytes.",
			"content": map[string]any{"application/octet-stream": map[string]any{"schema": map[string]any{"type": "string", "contentMediaType": "application/octet-stream"}}}}
	case Upgrade:
		responses["101"] = map[string]any{"description": "Switching protocols: the connection carries the relay protocol."}
	}
	op["responses"] = responses
	return op, nil
}

// schemas derives JSON Schemas from Go types as encoding/json encodes them; named structs
// become components referred to by $ref.
type schemas struct {
	defs  map[string]any
	names map[reflect.Type]string
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
	badNameChars  = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
)

// of returns the schema of t.
func (sc *schemas) of(t reflect.Type) map[string]any {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawType:
		return map[string]any{"description": "any JSON value"}
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType):
		return map[string]any{"description": "JSON as " + t.String() + " writes it"}
	case t.Kind() != reflect.Pointer && (t.Implements(textType) || reflect.PointerTo(t).Implements(textType)):
		return map[string]any{"type": "string"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return sc.of(t.Elem())
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": sc.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": sc.of(t.Elem())}
	case reflect.Struct:
		if t.Name() == "" {
			return sc.object(t)
		}
		return sc.ref(t)
	}
	return map[string]any{}
}

// ref returns a reference to the component of a named struct, defining it first.
func (sc *schemas) ref(t reflect.Type) map[string]any {
	name, ok := sc.names[t]
	if !ok {
		pkg := t.PkgPath()
		pkg = pkg[strings.LastIndex(pkg, "/")+1:]
		name = badNameChars.ReplaceAllString(pkg+"."+t.Name(), "_")
		for taken := true; taken; {
			_, taken = sc.defs[name]
			if taken {
				name += "_"
			}
		}
		sc.names[t] = name
		sc.defs[name] = map[string]any{} // a recursive type refers to itself meanwhile
		sc.defs[name] = sc.object(t)
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// object returns the schema of a struct: its fields as encoding/json names them.
func (sc *schemas) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	sc.fields(t, props)
	return map[string]any{"type": "object", "properties": props}
}

// fields adds the JSON fields of struct t (embedded structs' fields inline) to props.
func (sc *schemas) fields(t reflect.Type, props map[string]any) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				sc.fields(ft, props)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := sc.of(f.Type)
		if strings.Contains(","+opts+",", ",string,") {
			s = map[string]any{"type": "string"}
		}
		props[name] = s
	}
}
