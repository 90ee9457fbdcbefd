//go:build cgo

package main

// The JSON of the results: the library's own result types, written under
// their JSON tags, and the schema of those documents (optdp_schema).

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// jsonField is one member of the JSON object of a struct type: its name and
// the index sequence of the Go field (reflect.Value.FieldByIndex).
type jsonField struct {
	name  string
	index []int
}

// fieldCache holds jsonFields' answers by type.
var fieldCache sync.Map // reflect.Type -> []jsonField

// jsonFields lists the members of the struct type t: its exported fields,
// including those promoted from embedded structs (Go's own rule decides
// which of two fields of the same name is visible, so an outer field hides
// an embedded one), named by their json tags; "-" leaves a field out. An
// exported field without a JSON name is an error: every key of a document
// is named on purpose. The tags' options (omitempty) are not used: every
// member is written, so that a reader finds every key the schema lists.
func jsonFields(t reflect.Type) ([]jsonField, error) {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]jsonField), nil
	}
	var out []jsonField
	seen := map[string]bool{}
	for _, f := range reflect.VisibleFields(t) {
		tag, tagged := f.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case f.Anonymous && !tagged, !f.IsExported(), name == "-":
			continue // an embedded struct (its fields follow), or left out
		case name == "":
			return nil, fmt.Errorf("optdp: internal: field %s of %s has no JSON name", f.Name, t)
		case seen[name]:
			return nil, fmt.Errorf("optdp: internal: %s has two members named %q", t, name)
		}
		seen[name] = true
		out = append(out, jsonField{name, f.Index})
	}
	fieldCache.Store(t, out)
	return out, nil
}

// encode writes v as JSON: structs as objects of their jsonFields, in field
// order; slices and arrays as lists (a nil slice as []); nil pointers and
// interfaces as null; maps (string keys) with their keys sorted; values of
// a named type by their kind (a run.Verdict as its name, "yes", "no" or
// "borderline": MarshalJSON methods are not used). Unlike encoding/json it
// writes non-finite numbers as the tokens Infinity, -Infinity and NaN
// (optdp.h documents this).
func encode(v any) (string, error) {
	var b strings.Builder
	if err := write(&b, reflect.ValueOf(v)); err != nil {
		return "", err
	}
	return b.String(), nil
}

func write(b *strings.Builder, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("null")
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		writeFloat(b, v.Float())
	case reflect.String:
		s, _ := json.Marshal(v.String()) // strings always marshal
		b.Write(s)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return write(b, v.Elem())
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := write(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("optdp: internal: cannot encode %s", v.Type())
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := member(b, k.String(), v.MapIndex(k)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case reflect.Struct:
		fs, err := jsonFields(v.Type())
		if err != nil {
			return err
		}
		b.WriteByte('{')
		for i, f := range fs {
			if i > 0 {
				b.WriteByte(',')
			}
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil { // a field of a nil embedded pointer
				fv = reflect.Value{}
			}
			if err := member(b, f.name, fv); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("optdp: internal: cannot encode %s", v.Type())
	}
	return nil
}

// member writes "name":v.
func member(b *strings.Builder, name string, v reflect.Value) error {
	k, _ := json.Marshal(name) // strings always marshal
	b.Write(k)
	b.WriteByte(':')
	return write(b, v)
}

func writeFloat(b *strings.Builder, v float64) {
	switch {
	case math.IsNaN(v):
		b.WriteString("NaN")
	case math.IsInf(v, 1):
		b.WriteString("Infinity")
	case math.IsInf(v, -1):
		b.WriteString("-Infinity")
	default:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
}

// schemaOf is the tree of the keys of the JSON documents of type t: for a
// struct, an object mapping each member to the schema of its type; for a
// list, an array or a pointer, its element's; nil for the other types
// (numbers, strings, booleans, and free-form values such as an operator
// tree). A type met again inside itself is nil there.
func schemaOf(t reflect.Type) (any, error) {
	return schemaWalk(t, map[reflect.Type]bool{})
}

func schemaWalk(t reflect.Type, open map[reflect.Type]bool) (any, error) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return schemaWalk(t.Elem(), open)
	case reflect.Struct:
	default:
		return nil, nil
	}
	if open[t] {
		return nil, nil
	}
	open[t] = true
	defer delete(open, t)
	fs, err := jsonFields(t)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(fs))
	for _, f := range fs {
		s, err := schemaWalk(t.FieldByIndex(f.index).Type, open)
		if err != nil {
			return nil, err
		}
		out[f.name] = s
	}
	return out, nil
}

// jsonNames lists the JSON names a struct type decodes (its jsonFields),
// for messages; empty if it has none or is not a struct.
func jsonNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	fs, err := jsonFields(t)
	if err != nil {
		return nil
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}
