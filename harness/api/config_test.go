package api

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// TestConfigReads checks the configuration's lookups: a value, its source, whether a file set
// it, and the remapped keys (only those a file set).
func TestConfigReads(t *testing.T) {
	c := &Config{Values: []ConfigValue{
		{Key: ConfigKeyModel, Value: "gpt", Source: "/u/config.toml"},
		{Key: ConfigKeyTheme, Value: "auto", Source: ConfigSourceDefault},
		{Key: ConfigKeyPrefix + "zoom", Value: " Z, ,f11", Source: "/u/config.toml"},
		{Key: ConfigKeyPrefix + "help", Value: "?", Source: ConfigSourceDefault},
	}}
	if c.Get(ConfigKeyModel) != "gpt" || c.Source(ConfigKeyModel) != "/u/config.toml" || !c.FromFile(ConfigKeyModel) {
		t.Fatalf("model: %q from %q", c.Get(ConfigKeyModel), c.Source(ConfigKeyModel))
	}
	if c.FromFile(ConfigKeyTheme) || c.FromFile("nope") || c.Get("nope") != "" || c.Source("nope") != "" {
		t.Fatal("a default or unknown key counts as set by a file")
	}
	if got := c.Keys(); !reflect.DeepEqual(got, map[string][]string{"zoom": {"Z", "f11"}}) {
		t.Fatalf("keys %v", got)
	}
}

// TestHasCode checks that a wire code is found on a RemoteError, wrapped or not, and on a
// registered sentinel in the process that registered it.
func TestHasCode(t *testing.T) {
	remote := fmt.Errorf("connect: %w", &RemoteError{Code: CodeCorrupt, Message: "damaged"})
	if !HasCode(remote, CodeCorrupt) || HasCode(remote, CodeNotOwner) || HasCode(nil, CodeCorrupt) {
		t.Fatal("a remote error's code is not told apart")
	}
	sentinel := errors.New("test: registered sentinel")
	RegisterErrorCode("test_has_code", sentinel)
	if !HasCode(fmt.Errorf("op: %w", sentinel), "test_has_code") || HasCode(errors.New("other"), "test_has_code") {
		t.Fatal("a registered sentinel's code is not found")
	}
}
