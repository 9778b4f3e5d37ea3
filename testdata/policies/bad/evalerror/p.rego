package main

# Fails at evaluation for a profile that extends nothing: division by zero.
deny contains msg if {
	share := 100 / count(input.profile.extends)
	msg := sprintf("share %v", [share])
}
