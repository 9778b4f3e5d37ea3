package main

# conftest rejects this too: a boolean deny says nothing about what is wrong.
deny if {
	input.profile.network.mode == "full"
}
