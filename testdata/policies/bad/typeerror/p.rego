package main

deny contains msg if {
	msg := concat(", ", input.profile.name, "x")
}
