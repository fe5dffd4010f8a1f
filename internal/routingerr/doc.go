// Package routingerr turns the evidence of a failed agent turn into a
// classification (code, class, confidence, rule id, retry/reset hints,
// resume safety, the model it names, a sanitised excerpt) and, through
// Policy, into a decision: retry after a delay, wait until a usage window
// resets, or ask a human.
//
// It owns every match on provider error text in the project (CONVENTIONS 6):
// other packages switch on Classification and Decision, never on strings.
//
// It never does I/O, never starts timers or goroutines and never reads the
// clock: "now" and randomness are injected, so every answer is reproducible.
// The one exception is time zone data for a named reset zone ("resets 3pm
// (Europe/Paris)"), loaded once per zone through time.LoadLocation.
//
// Rules are ordered and first-match-wins (see rules.go for the bands); each
// has a stable, versioned id. Changing what a rule matches means a new
// version suffix, so stored classifications keep their meaning. Two things
// bend that order (classify.go): the text is read as it rendered (colour
// codes dropped; JSON's escaped newlines, Markdown quotes and log headers
// evened out), and a transport failure whose text goes on to a cause that
// no replay fixes is that cause's envelope, so the later stop decides.
package routingerr
