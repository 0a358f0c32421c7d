package shared

// ReadOutcome is what a resource's refresh found of its object in Nomad.
type ReadOutcome int

const (
	// ObjectRead: the object exists and the model now says what it holds.
	ObjectRead ReadOutcome = iota
	// ObjectGone: Nomad has no such object; the model is unchanged.
	ObjectGone
	// ObjectUnread: the object could not be read (or is no longer what
	// berth made); diagnostics say why, and the model keeps what is known.
	ObjectUnread
)
