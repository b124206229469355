package model

// Transient API errors (fault api-error): an overloaded or restarting
// apiserver answers 429 Too Many Requests, 503 Service Unavailable or 504
// Timeout. The fault arms one component; its next API call fails before
// it reaches the store, so nothing is written and nothing is recorded.
// For the model's components the next call is the next store write of a
// reconcile: the write fails, the reconcile stops and the key is retried,
// exactly as after any failed write. A user's controller in the
// implementation sees the error on its next read or write and decides for
// itself what to do (impl/cluster).

// TransientCodes are the HTTP codes of api-error, in the order the fault
// takes them.
var TransientCodes = [...]int{503, 429, 504}

// TransientCode reports whether n is one of TransientCodes.
func TransientCode(n int) bool {
	for _, c := range TransientCodes {
		if c == n {
			return true
		}
	}
	return false
}

// TransientFault is the api-error fault listed for a component at logical
// time now: one action per component keeps the fault list short, and the
// code turns with the clock so that every code is drawn.
func TransientFault(component string, now int64) Action {
	return Action{Op: OpAPIError, Who: component, N: TransientCodes[now%int64(len(TransientCodes))]}
}

// transient fails the write now if the component has an api-error armed,
// and disarms it.
func (t *tx) transient() bool {
	if t.comp == nil || t.comp.apiErr == 0 {
		return false
	}
	t.comp.apiErr = 0
	t.failed = true
	return true
}
