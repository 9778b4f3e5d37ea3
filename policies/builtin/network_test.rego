package sbx.builtin.network_test

import data.sbx.builtin.network
import data.sbx.fixtures as f

test_full_network_without_reason if {
	findings := network.warn_network_full with input as f.network_input({"mode": "full"})
	f.codes(findings) == {"SBX008"}
	f.lines(findings) == {40}
}

test_full_network_with_blank_reason if {
	f.codes(network.warn_network_full) == {"SBX008"} with input as f.network_input({"mode": "full", "reason": "  "})
}

test_full_network_with_reason if {
	count(network.warn_network_full) == 0 with input as f.network_input({"mode": "full", "reason": "npm install"})
}

test_no_network if {
	count(network.warn_network_full) == 0 with input as f.network_input({"mode": "none"})
}

test_docker_socket if {
	sock := {"path": f.path("/var/run/docker.sock"), "source": f.src(44)}
	findings := network.warn_privileged_socket with input as f.network_input({"mode": "none", "unix_sockets": [sock]})
	f.codes(findings) == {"SBX015"}
	f.lines(findings) == {44}
}

test_other_socket if {
	sock := {"path": f.path("{tmpdir}/app.sock"), "source": f.src(44)}
	count(network.warn_privileged_socket) == 0 with input as f.network_input({"mode": "none", "unix_sockets": [sock]})
}

test_dbus_buses_are_privileged if {
	every p in ["/run/user/1000/bus", "/run/dbus/system_bus_socket"] {
		sock := {"path": f.path(p), "source": f.src(44)}
		f.codes(network.warn_privileged_socket) == {"SBX015"} with input as f.network_input({"mode": "none", "unix_sockets": [sock]})
	}
}
