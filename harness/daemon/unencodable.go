package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"exo/harness/api"
	"exo/store"
)

// unencodable explains why an answer or a frame could not be encoded. Reads do not check each
// event's data (a JSON scan on every read would make decoding ten times slower), so an event
// whose stored data was damaged on disk is found here, when the answer carrying it fails: the
// error names it (branch@seq) and says what to do, instead of the client seeing no answer.
func unencodable(err error, v any) error {
	var me *json.MarshalerError
	if !errors.As(err, &me) {
		return fmt.Errorf("the daemon could not encode its answer: %w", err)
	}
	if e, ok := damagedEvent(reflect.ValueOf(v), 0); ok {
		return store.DamagedData(e.Branch, e.Seq)
	}
	return fmt.Errorf("the daemon could not encode its answer (stored data may be damaged: run `exo verify`): %w", err)
}

// eventType is api.Event's type, which damagedEvent looks for.
var eventType = reflect.TypeFor[api.Event]()

// damagedEvent finds, in v, an event whose data is not JSON. It walks pointers, interfaces,
// structs, slices and maps, at most 8 levels deep.
func damagedEvent(v reflect.Value, depth int) (api.Event, bool) {
	if depth > 8 || !v.IsValid() {
		return api.Event{}, false
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return api.Event{}, false
		}
		return damagedEvent(v.Elem(), depth+1)
	case reflect.Struct:
		if v.Type() == eventType {
			e := v.Interface().(api.Event)
			return e, !json.Valid(e.Data)
		}
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			if e, ok := damagedEvent(v.Field(i), depth+1); ok {
				return e, true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if e, ok := damagedEvent(v.Index(i), depth+1); ok {
				return e, true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if e, ok := damagedEvent(it.Value(), depth+1); ok {
				return e, true
			}
		}
	}
	return api.Event{}, false
}
