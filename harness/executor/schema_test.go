package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// example is a value of the JSON type s describes, its first enumerated value if it has some.
func example(t *testing.T, s *jsonschema.Schema) any {
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch s.Type {
	case "string":
		return "x"
	case "integer":
		return 7
	case "boolean":
		return true
	case "array":
		return []any{example(t, s.Items)}
	case "object":
		m := map[string]any{}
		for name, p := range s.Properties {
			m[name] = example(t, p)
		}
		return m
	}
	t.Fatalf("a schema with no type the providers all take: %+v", s)
	return nil
}

// TestToolSchemasMatchWhatRunnersDecode checks, for every tool exo's executor offers a model or
// an external agent, that the schema is a valid JSON schema of an object, that arguments with
// every property it names set pass it and decode into the runner's struct with no property
// unknown to the struct and every field of it set, and that arguments of the wrong type are
// answered with an error before the runner acts.
func TestToolSchemasMatchWhatRunnersDecode(t *testing.T) {
	t.Parallel()
	tools := append(builtinTools(), agentTools()...)
	if len(tools) != len(ToolNames()) || len(tools) < 13 {
		t.Fatalf("%d tools", len(tools))
	}
	for _, tl := range tools {
		t.Run(tl.spec.Name, func(t *testing.T) {
			var s jsonschema.Schema
			if err := json.Unmarshal(tl.spec.Schema, &s); err != nil {
				t.Fatalf("schema is not JSON: %v", err)
			}
			rs, err := s.Resolve(nil)
			if err != nil {
				t.Fatalf("schema does not resolve: %v", err)
			}
			if s.Type != "object" || len(s.Properties) == 0 {
				t.Fatalf("not an object schema: %s", tl.spec.Schema)
			}
			for _, r := range s.Required {
				if s.Properties[r] == nil {
					t.Errorf("required %q is not a property", r)
				}
			}
			args := example(t, &s)
			if err := rs.Validate(args); err != nil {
				t.Fatalf("example %v does not validate: %v", args, err)
			}
			raw, _ := json.Marshal(args)
			dst := reflect.New(tl.args)
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(dst.Interface()); err != nil {
				t.Fatalf("%s does not decode into %v: %v", raw, tl.args, err)
			}
			checkAllSet(t, dst.Elem(), tl.args.String())
			if tl.spec.Name == "todo_write" { // the one runner that needs no session: it takes every status offered.
				for _, st := range s.Properties["todos"].Items.Properties["status"].Enum {
					list := fmt.Sprintf(`{"todos":[{"content":"a","status":%q}]}`, st)
					if out := tl.run(context.Background(), toolCtx{}, json.RawMessage(list)); out.isError {
						t.Errorf("%s: %s", list, out.text)
					}
				}
			}
			first := slices.Sorted(maps.Keys(s.Properties))[0]
			var bad any = map[string]any{"x": []int{1}}
			if s.Properties[first].Type == "object" {
				bad = "not an object"
			}
			wrong, _ := json.Marshal(map[string]any{first: bad})
			if err := rs.Validate(mustAny(wrong)); err == nil {
				t.Errorf("%s validates", wrong)
			}
			out := tl.run(context.Background(), toolCtx{}, wrong)
			if !out.isError || !strings.Contains(out.text, "arguments") {
				t.Errorf("%s: %+v", wrong, out)
			}
		})
	}
}

// checkAllSet fails when a field of v (but those the schema leaves out on purpose) is zero:
// a property of the schema the struct's decoding did not fill.
func checkAllSet(t *testing.T, v reflect.Value, where string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Name == "ActiveForm" { // Claude Code's field, not in todo_write's schema.
				continue
			}
			checkAllSet(t, v.Field(i), where+"."+f.Name)
		}
	case reflect.Slice:
		if v.Len() == 0 {
			t.Errorf("%s: no property of the schema filled it", where)
		}
		for i := range v.Len() {
			checkAllSet(t, v.Index(i), where)
		}
	default:
		if v.IsZero() {
			t.Errorf("%s: no property of the schema filled it", where)
		}
	}
}

// mustAny decodes JSON b into a value for Validate.
func mustAny(b []byte) any {
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}
