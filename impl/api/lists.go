package api

import (
	"fmt"
	"reflect"
	"sync"
)

// Lists are k8s.io/api's own types, which have no methods to reach their
// items: Items and SetItems reach the Items field of any list. A list
// whose items are not a slice of one kind (the registry's union of
// kinds) has methods of its own, which they call instead.

type itemsGetter interface{ GetItems() []Object }

type itemsSetter interface{ SetItems([]Object) error }

// itemsFields caches, per list type, the index of its Items field.
var itemsFields sync.Map // reflect.Type -> int

// itemsOf is l's Items field.
func itemsOf(l ListObject) reflect.Value {
	v := reflect.ValueOf(l).Elem()
	if i, ok := itemsFields.Load(v.Type()); ok {
		return v.Field(i.(int))
	}
	f, ok := v.Type().FieldByName("Items")
	if !ok || f.Type.Kind() != reflect.Slice || len(f.Index) != 1 {
		panic(fmt.Sprintf("api: %s has no Items slice", v.Type()))
	}
	itemsFields.Store(v.Type(), f.Index[0])
	return v.Field(f.Index[0])
}

// Items returns pointers into l's own items: writes through them change
// the list.
func Items(l ListObject) []Object {
	if g, ok := l.(itemsGetter); ok {
		return g.GetItems()
	}
	v := itemsOf(l)
	out := make([]Object, v.Len())
	for i := range out {
		out[i] = v.Index(i).Addr().Interface().(Object)
	}
	return out
}

// SetItems replaces l's items with copies of objs; it fails if an item
// has another kind.
func SetItems(l ListObject, objs []Object) error {
	if s, ok := l.(itemsSetter); ok {
		return s.SetItems(objs)
	}
	v := itemsOf(l)
	want := reflect.PointerTo(v.Type().Elem())
	out := reflect.MakeSlice(v.Type(), len(objs), len(objs))
	for i, o := range objs {
		p := reflect.ValueOf(o)
		if p.Type() != want || p.IsNil() {
			return fmt.Errorf("api: list item %d is %T, want %s", i, o, want)
		}
		out.Index(i).Set(p.Elem())
	}
	v.Set(out)
	return nil
}
