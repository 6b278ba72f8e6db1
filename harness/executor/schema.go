package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"exo/harness/provider"
)

// runner is a tool's implementation taking its raw arguments; A is the struct they decode into,
// from which the tool's schema is derived.
type runner[A any] func(ctx context.Context, tc toolCtx, raw json.RawMessage) toolOutput

// decoding makes a runner of run: the call's arguments are decoded into A first, and a call
// whose arguments do not fit A is answered with an error the model can act on.
func decoding[A any](run func(ctx context.Context, tc toolCtx, a *A) toolOutput) runner[A] {
	return func(ctx context.Context, tc toolCtx, raw json.RawMessage) toolOutput {
		var a A
		if err := argsOf(raw, &a); err != nil {
			return failed(err.Error())
		}
		return run(ctx, tc, &a)
	}
}

// newTool builds a built-in tool whose schema is derived from A, the struct run decodes into;
// edits, if any, add what a struct cannot say (an enumeration) to the derived schema.
func newTool[A any](name, desc string, run runner[A], edits ...func(*jsonschema.Schema)) tool {
	return tool{spec: provider.Tool{Name: name, Description: desc, Schema: schemaOf[A](edits...)}, run: run, args: reflect.TypeFor[A]()}
}

// schemaOf derives the JSON schema of A's arguments. It is the schema jsonschema-go infers,
// with two changes that keep it what the runner accepts and what every provider takes: a slice
// may be absent but is not offered as null, and properties the struct does not name are not
// refused (encoding/json ignores them; the schema says nothing of them, as before it was
// derived). A type jsonschema-go cannot describe is a programming error, found by the tests.
func schemaOf[A any](edits ...func(*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[A](nil)
	if err != nil {
		panic(fmt.Sprintf("executor: schema of %T: %v", *new(A), err))
	}
	plain(s)
	for _, edit := range edits {
		edit(s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("executor: schema of %T: %v", *new(A), err))
	}
	return b
}

// plain drops, through s and the schemas below it, additionalProperties and the null of a
// slice's types.
func plain(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		plain(p)
	}
	plain(s.Items)
}
