package main

deny contains msg if {
	resp := http.send({"method": "GET", "url": "https://policy.example.com/allowed"})
	not input.name in resp.body.allowed
	msg := "profile not on the allow list"
}
