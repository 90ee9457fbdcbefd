//go:build cgo

package main

// A small JSON writer: ordered objects and non-finite numbers.

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// kv is one member of an obj.
type kv struct {
	k string
	v any
}

// obj is a JSON object whose members keep their order.
type obj []kv

// encode writes v as JSON. Unlike encoding/json it writes non-finite
// float64 values as the tokens Infinity, -Infinity and NaN (optdp.h
// documents this), which is why results are not encoded with json.Marshal.
// Supported: nil, bool, int, int64, uint64, float64, string, []float64,
// []int, []string, []any, obj.
func encode(v any) (string, error) {
	var b strings.Builder
	if err := write(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

func write(b *strings.Builder, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case uint64:
		b.WriteString(strconv.FormatUint(v, 10))
	case float64:
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
	case string:
		s, _ := json.Marshal(v) // strings always marshal
		b.Write(s)
	case []float64:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			_ = write(b, x)
		}
		b.WriteByte(']')
	case []int:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(x))
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			_ = write(b, x)
		}
		b.WriteByte(']')
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := write(b, x); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case obj:
		b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			_ = write(b, m.k)
			b.WriteByte(':')
			if err := write(b, m.v); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("optdp: internal: cannot encode %T", v)
	}
	return nil
}
