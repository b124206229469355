package kubeproto

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The table is consistent: every referenced message exists, every kind has
// a message, names are unique per message, and only kinds the decoder can
// read as a list are repeated.
func TestSchemaIsConsistent(t *testing.T) {
	for k, top := range kinds {
		if _, ok := schema[top]; !ok {
			t.Errorf("kind %v: no message %s", k, top)
		}
	}
	for name, m := range schema {
		seen := map[string]bool{}
		for num, f := range m {
			if num < 1 {
				t.Errorf("%s: field number %d", name, num)
			}
			switch f.kind {
			case kindMessage, kindInline:
				if _, ok := schema[f.msg]; !ok {
					t.Errorf("%s field %d: no message %q", name, num, f.msg)
				}
			default:
				if f.msg != "" {
					t.Errorf("%s field %d: %q is not a message field", name, num, f.name)
				}
			}
			if (f.kind == kindInline) != (f.name == "") {
				t.Errorf("%s field %d: inline fields, and only they, have no name", name, num)
			}
			if f.repeated && f.kind != kindString && f.kind != kindMessage {
				t.Errorf("%s field %d: repeated %q must be strings or messages (packed scalars are not read)", name, num, f.name)
			}
			if f.optional && f.repeated {
				t.Errorf("%s field %d: a list cannot be optional", name, num)
			}
			if f.name != "" && seen[f.name] {
				t.Errorf("%s: JSON name %q twice", name, f.name)
			}
			seen[f.name] = true
		}
	}
}

// FuzzToJSON: any input either fails or yields one valid JSON object that
// names its apiVersion and kind.
func FuzzToJSON(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.pb"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(deployment(pb{}.int32(1, -1).msg(4, pb{}.str(1, "RollingUpdate").msg(2, pb{}.msg(1, pb{}.varint(1, 1).str(3, "25%"))))))
	f.Add(wrap("v1", "Node", pb{}.msg(3, pb{}.msg(1, pb{}.str(1, "cpu").msg(2, pb{}.str(1, "4"))).msg(4, pb{}.str(1, "Ready").msg(3, pb{}.varint(1, 1))))))
	f.Add(wrap("v1", "Pod", pb{}.msg(2, pb{}.msg(2, pb{}.msg(11, pb{}.msg(1, pb{}.msg(3, pb{}.msg(1, pb{}.str(3, "http")))))))))
	f.Add(wrap("v1", "Endpoints", pb{}.msg(2, pb{}.msg(1, pb{}.str(1, "10.0.0.1").msg(2, pb{}.str(1, "Pod"))))))
	f.Add([]byte("k8s\x00"))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := ToJSON(body)
		if errors.Is(err, errInternal) {
			t.Fatal(err)
		}
		if err != nil {
			if out != nil {
				t.Fatalf("error %v with output %q", err, out)
			}
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(out, &obj); err != nil {
			t.Fatalf("invalid JSON %q: %v", out, err)
		}
		if v, _ := obj["apiVersion"].(string); v == "" {
			t.Fatalf("no apiVersion in %s", out)
		}
		if k, _ := obj["kind"].(string); k == "" {
			t.Fatalf("no kind in %s", out)
		}
	})
}
