package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"exo/harness/api"
)

// MaxBody bounds a request body (a prompt or a secret, never a file upload).
const MaxBody = 64 << 20

// Target returns the path and query a request of method e travels to: its path parameters
// filled in (escaped) and its query parameters encoded.
func Target(e api.Endpoint, req any) (string, error) {
	v := reflect.ValueOf(req)
	p := e.Path
	q := url.Values{}
	for _, prm := range e.Params {
		f, err := field(v, prm.Field)
		if err != nil {
			return "", fmt.Errorf("%s: %w", e.Name, err)
		}
		switch prm.In {
		case api.InPath:
			p = strings.ReplaceAll(p, "{"+prm.Name+"}", url.PathEscape(fmt.Sprint(f.Interface())))
		case api.InQuery:
			if s, ok := queryValue(f); ok {
				q.Set(prm.Name, s)
			}
		}
	}
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	return p, nil
}

// queryValue formats a query parameter; ok is false when it is not sent (false, or unset).
func queryValue(f reflect.Value) (string, bool) {
	switch f.Kind() {
	case reflect.Bool:
		if f.Bool() {
			return "1", true
		}
		return "", false
	case reflect.Pointer:
		if f.IsNil() {
			return "", false
		}
		return queryValue(f.Elem())
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		return strconv.FormatUint(f.Uint(), 10), true
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(f.Int(), 10), true
	}
	return f.String(), true
}

// Decode fills req (a pointer to method e's request) from an HTTP request: its JSON body when
// the method has one, then its path and query parameters.
func Decode(e api.Endpoint, r *http.Request, req any) error {
	if e.Body {
		if err := ReadJSON(r, req); err != nil {
			return err
		}
	}
	v := reflect.ValueOf(req)
	for _, prm := range e.Params {
		f, err := field(v, prm.Field)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		switch prm.In {
		case api.InPath:
			f.SetString(r.PathValue(prm.Name))
		case api.InQuery:
			if err := setQuery(f, r.URL.Query(), prm.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// setQuery parses query parameter name into f: absent is the zero value (nil for a pointer).
func setQuery(f reflect.Value, q url.Values, name string) error {
	s := q.Get(name)
	switch f.Kind() {
	case reflect.String:
		f.SetString(s)
	case reflect.Bool:
		f.SetBool(s == "1" || s == "true")
	case reflect.Pointer:
		if !q.Has(name) {
			return nil
		}
		p := reflect.New(f.Type().Elem())
		if err := setQuery(p.Elem(), q, name); err != nil {
			return err
		}
		f.Set(p)
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		if s == "" {
			return nil
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: %s=%q is not a number", api.ErrInvalid, name, s)
		}
		f.SetUint(n)
	case reflect.Int, reflect.Int64, reflect.Int32:
		if s == "" {
			return nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: %s=%q is not a number", api.ErrInvalid, name, s)
		}
		f.SetInt(n)
	default:
		return fmt.Errorf("query parameter %s: unsupported kind %s", name, f.Kind())
	}
	return nil
}

// field returns the field of v (a struct or a pointer to one) a dotted Go field path names.
func field(v reflect.Value, path string) (reflect.Value, error) {
	for part := range strings.SplitSeq(path, ".") {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return v, fmt.Errorf("field %s: not in a struct", path)
		}
		v = v.FieldByName(part)
		if !v.IsValid() {
			return v, fmt.Errorf("no field %s", path)
		}
	}
	return v, nil
}

// ReadJSON decodes a request body into v.
func ReadJSON(r *http.Request, v any) error {
	if r.Body == nil {
		return fmt.Errorf("%w: empty body", api.ErrInvalid)
	}
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, MaxBody))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: bad JSON body: %v", api.ErrInvalid, err)
	}
	return nil
}
