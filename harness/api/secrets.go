package api

import "time"

// SecretInfo is what may be shown about a secret: never its value.
type SecretInfo struct {
	// Name is the secret's name.
	Name string `json:"name"`
	// Created is when the secret was first set.
	Created time.Time `json:"created"`
	// Updated is when the value last changed.
	Updated time.Time `json:"updated"`
	// Unreadable is set when the value no longer opens (the key file was
	// replaced, or the record altered); set it again or remove it.
	Unreadable bool `json:"unreadable,omitempty"`
}
