package main

import (
	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// targets returns the target compilers whose outputs `sbc compile` stores
// in every artifact, one line each. After adding one, regenerate the
// built-in artifacts: go generate ./builtin
func targets() []target.Target {
	return []target.Target{
		landlock.Target{}, // Linux: Landlock ruleset plan (targets/landlock)
	}
}
