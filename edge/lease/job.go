package lease

// Step is one unit of a job's work; it reports an error to stop the run.
type Step func(i int) error

// Outcome is what one trigger of a job did.
type Outcome struct {
	Ran     bool   `json:"ran"`               // this trigger held the lease and ran the job
	Steps   int    `json:"steps"`             // steps completed
	Holder  string `json:"holder,omitempty"`  // who holds the lease, when this trigger did not run
	Lost    bool   `json:"lost,omitempty"`    // the lease was lost mid-run (a renewal failed)
	Failure string `json:"failure,omitempty"` // the step's error, if one failed
}

// Run runs steps steps of the job called name under its lease: it takes the
// lease for owner (or returns at once, not running, if another holds it),
// renews it after each step, and releases it at the end. now is read before
// each lease operation.
func (t *Table) Run(name, owner string, now func() int64, ttlMs int64, steps int, step Step) (Outcome, error) {
	ok, err := t.Take(name, owner, now(), ttlMs)
	if err != nil {
		return Outcome{}, err
	}
	if !ok {
		holder, _, _ := t.Holder(name, now())
		return Outcome{Holder: holder}, nil
	}
	out := Outcome{Ran: true}
	defer func() { _, _ = t.Release(name, owner) }()
	for i := range steps {
		if err := step(i); err != nil {
			out.Failure = err.Error()
			return out, nil
		}
		out.Steps++
		if ok, err := t.Renew(name, owner, now(), ttlMs); !ok || err != nil {
			out.Lost = true
			return out, err
		}
	}
	return out, nil
}
