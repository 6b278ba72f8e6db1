package api

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTableIsConsistent checks every method of the table: a unique name and route, path
// wildcards bound one for one to fields of its request, query fields of a kind the wire
// encodes, and no body on a GET.
func TestTableIsConsistent(t *testing.T) {
	names, patterns := map[string]bool{}, map[string]bool{}
	wild := regexp.MustCompile(`\{([a-z]+)\}`)
	for _, e := range Endpoints() {
		if names[e.Name] || patterns[e.Pattern()] {
			t.Errorf("%s (%s) declared twice", e.Name, e.Pattern())
		}
		names[e.Name], patterns[e.Pattern()] = true, true
		if e.Doc == "" || !strings.HasPrefix(e.Path, "/v1/") {
			t.Errorf("%s: doc %q, path %q", e.Name, e.Doc, e.Path)
		}
		if e.Body && e.Verb == "GET" {
			t.Errorf("%s: a GET with a body", e.Name)
		}
		var inPath []string
		for _, m := range wild.FindAllStringSubmatch(e.Path, -1) {
			inPath = append(inPath, m[1])
		}
		var bound []string
		for _, p := range e.Params {
			f, ok := FieldByPath(e.Request, p.Field)
			if !ok {
				t.Errorf("%s: %s names no field of %s", e.Name, p.Field, e.Request)
				continue
			}
			k := f.Type.Kind()
			if k == reflect.Pointer {
				k = f.Type.Elem().Kind()
			}
			switch {
			case p.In == InPath:
				bound = append(bound, p.Name)
				if f.Type.Kind() != reflect.String {
					t.Errorf("%s: path parameter %s is a %s", e.Name, p.Name, f.Type)
				}
			case k != reflect.String && k != reflect.Bool && k != reflect.Uint64:
				t.Errorf("%s: query parameter %s is a %s", e.Name, p.Name, f.Type)
			}
		}
		slices.Sort(inPath)
		slices.Sort(bound)
		if !slices.Equal(inPath, bound) {
			t.Errorf("%s: the path has %v, the params bind %v", e.Name, inPath, bound)
		}
	}
}

// TestEveryClientMethodIsInTheTable: each method of Client but Close is served by a method of
// the table of its name (StateAt by State's seq).
func TestEveryClientMethodIsInTheTable(t *testing.T) {
	names := map[string]bool{}
	for _, e := range Endpoints() {
		names[e.Name] = true
	}
	served := map[string]string{"StateAt": "State", "Close": ""}
	ct := reflect.TypeFor[Client]()
	for i := range ct.NumMethod() {
		name := ct.Method(i).Name
		if by, ok := served[name]; ok {
			if by != "" && !names[by] {
				t.Errorf("%s: %s is not in the table", name, by)
			}
			continue
		}
		if !names[name] {
			t.Errorf("Client.%s is not in the table", name)
		}
	}
}

// TestOpenAPIDocument checks the document: OpenAPI 3.1, one operation per method, and every
// $ref naming a schema it defines.
func TestOpenAPIDocument(t *testing.T) {
	doc, err := OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		OpenAPI    string                               `json:"openapi"`
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", back.OpenAPI)
	}
	ops := 0
	for _, item := range back.Paths {
		ops += len(item)
	}
	if ops != len(Endpoints()) {
		t.Fatalf("%d operations for %d methods", ops, len(Endpoints()))
	}
	for _, m := range regexp.MustCompile(`"\$ref":"#/components/schemas/([^"]+)"`).FindAllStringSubmatch(string(b), -1) {
		if _, ok := back.Components.Schemas[m[1]]; !ok {
			t.Errorf("$ref to %s, which is not defined", m[1])
		}
	}
	fork := back.Paths["/v1/sessions/{id}/fork"]["post"]
	if fork["operationId"] != "Fork" || fork["requestBody"] == nil {
		t.Fatalf("fork: %v", fork)
	}
	if !strings.Contains(string(b), `"session":{"type":"string"}`) {
		t.Fatal("ForkRequest's fields are not described by their json names")
	}
}
