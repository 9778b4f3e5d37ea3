package landlock_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// checkPlanJSON compares AppendJSON with json.Marshal on p.
func checkPlanJSON(t *testing.T, name string, p *landlock.Plan) {
	t.Helper()
	want, werr := json.Marshal(p)
	got, gerr := p.AppendJSON([]byte("prefix"))
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s: json.Marshal error %v, AppendJSON error %v", name, werr, gerr)
	}
	if werr != nil {
		return
	}
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("%s: AppendJSON differs from json.Marshal:\n got %.2000s\nwant %.2000s", name, got, want)
	}
}

// TestPlanAppendJSON: the plans of the built-in and example profiles, the
// zero plan, and plans whose every field (found by reflection, so a field
// added to any type of the plan is covered) holds random values, among
// them strings that need escaping, nil and empty slices, rights bits no
// name covers and invalid access levels, encode as json.Marshal encodes
// them.
func TestPlanAppendJSON(t *testing.T) {
	for name, ip := range profiles(t) {
		p, err := landlock.Compile(ip)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkPlanJSON(t, name, p)
	}
	checkPlanJSON(t, "zero", &landlock.Plan{})
	r := rand.New(rand.NewPCG(7, 11))
	seen := map[string]bool{}
	for i := range 2000 {
		var p landlock.Plan
		fillRandom(r, reflect.ValueOf(&p).Elem(), "Plan", seen)
		checkPlanJSON(t, "random plan", &p)
		if i == 0 && len(seen) < 60 {
			t.Fatalf("the random plans set only %d fields", len(seen))
		}
	}
}

var trickyStrings = []string{
	"", "a", "{cwd}/.git", "R&D <x> y", "quote \" and \\ back", "\x00\x01\b\f\n\r\t\x1f\x7f",
	"é ü 日本", "\u2028\u2029", "bad \xff\xfe utf-8", "\xe2\x80", "\U0001F600",
}

// fillRandom sets v (and everything below it) to random values, and
// records in seen the path of each field it set.
func fillRandom(r *rand.Rand, v reflect.Value, path string, seen map[string]bool) {
	seen[path] = true
	switch v.Type() {
	case reflect.TypeFor[ir.Access]():
		// Mostly valid; sometimes not, which both encoders refuse.
		v.SetInt(int64(r.IntN(3)))
		if r.IntN(200) == 0 {
			v.SetInt(7)
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(trickyStrings[r.IntN(len(trickyStrings))])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		choices := []int64{0, 1, -1, 7, 65535, 1 << 40, -1 << 62}
		v.SetInt(choices[r.IntN(len(choices))])
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if r.IntN(3) == 0 {
			v.SetUint(0)
		} else {
			v.SetUint(r.Uint64() >> (r.IntN(64)))
		}
	case reflect.Slice:
		switch r.IntN(4) {
		case 0: // nil
			v.Set(reflect.Zero(v.Type()))
		case 1: // empty, not nil
			v.Set(reflect.MakeSlice(v.Type(), 0, 1))
		default:
			n := 1 + r.IntN(3)
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				fillRandom(r, s.Index(i), path+"[]", seen)
			}
			v.Set(s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			fillRandom(r, v.Field(i), path+"."+f.Name, seen)
		}
	default:
		panic("fillRandom: no values for " + v.Type().String())
	}
}

// FuzzAppendJSONString: plan strings are quoted as json.Marshal quotes
// them.
//
//	go test ./targets/landlock -run '^$' -fuzz '^FuzzAppendJSONString$' -fuzztime 100000x
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := &landlock.Plan{Profile: s, Base: []string{s}}
		checkPlanJSON(t, "string", p)
	})
}
