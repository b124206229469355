package api

import "fmt"

// itemPointers returns pointers into items, so generic code can read and
// write a typed list's elements.
func itemPointers[T any, PT interface {
	*T
	Object
}](items []T) []Object {
	out := make([]Object, len(items))
	for i := range items {
		out[i] = PT(&items[i])
	}
	return out
}

// itemValues copies objects of one kind into a typed slice.
func itemValues[T any](objs []Object) ([]T, error) {
	out := make([]T, 0, len(objs))
	for i, o := range objs {
		p, ok := any(o).(*T)
		if !ok || p == nil {
			var want *T
			return nil, fmt.Errorf("api: list item %d is %T, want %T", i, o, want)
		}
		out = append(out, *p)
	}
	return out, nil
}

func (l *DeploymentList) GetItems() []Object { return itemPointers[Deployment](l.Items) }
func (l *DeploymentList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Deployment](objs)
	return err
}

func (l *ReplicaSetList) GetItems() []Object { return itemPointers[ReplicaSet](l.Items) }
func (l *ReplicaSetList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[ReplicaSet](objs)
	return err
}

func (l *PodList) GetItems() []Object { return itemPointers[Pod](l.Items) }
func (l *PodList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Pod](objs)
	return err
}

func (l *NodeList) GetItems() []Object { return itemPointers[Node](l.Items) }
func (l *NodeList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Node](objs)
	return err
}

func (l *ServiceList) GetItems() []Object { return itemPointers[Service](l.Items) }
func (l *ServiceList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Service](objs)
	return err
}

func (l *EndpointsList) GetItems() []Object { return itemPointers[Endpoints](l.Items) }
func (l *EndpointsList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Endpoints](objs)
	return err
}

func (l *NamespaceList) GetItems() []Object { return itemPointers[Namespace](l.Items) }
func (l *NamespaceList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Namespace](objs)
	return err
}

func (l *EventList) GetItems() []Object { return itemPointers[Event](l.Items) }
func (l *EventList) SetItems(objs []Object) (err error) {
	l.Items, err = itemValues[Event](objs)
	return err
}

// Compile-time checks that every kind and list satisfies the generic
// interfaces.
var (
	_ Object     = (*Deployment)(nil)
	_ Object     = (*ReplicaSet)(nil)
	_ Object     = (*Pod)(nil)
	_ Object     = (*Node)(nil)
	_ Object     = (*Service)(nil)
	_ Object     = (*Endpoints)(nil)
	_ Object     = (*Namespace)(nil)
	_ Object     = (*Binding)(nil)
	_ Object     = (*Scale)(nil)
	_ ListObject = (*DeploymentList)(nil)
	_ ListObject = (*ReplicaSetList)(nil)
	_ ListObject = (*PodList)(nil)
	_ ListObject = (*NodeList)(nil)
	_ ListObject = (*ServiceList)(nil)
	_ ListObject = (*EndpointsList)(nil)
	_ ListObject = (*NamespaceList)(nil)
)
