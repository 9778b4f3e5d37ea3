# METADATA
# title: Network
# description: |
#   Built-in rules about network access and the sockets a profile can reach.
package sbx.builtin.network

import data.sbx.lib

_net := input.profile.network

# METADATA
# title: network-full-without-reason
# description: |
#   Full network access lets a sandboxed command download and run anything
#   and send anything it can read anywhere. It is sometimes needed (package
#   managers, API clients), but it should be a decision a reviewer can see:
#   give the reason in the profile (network { mode = "full" reason = "..." }),
#   or use mode "ports" with the ports the tool needs.
# custom:
#   code: SBX008
#   severity: warning
warn_network_full contains {
	"code": "SBX008",
	"msg": "network access is unrestricted (mode \"full\") and the profile gives no reason: add reason = \"...\" or use mode \"ports\"",
	"node": _net,
} if {
	lib.sandboxed
	_net.mode == "full"
	trim_space(_net.reason) == ""
}

# Unix sockets of services that run with root-equivalent privileges: a
# client of them controls the host.
privileged_sockets := {
	"docker.sock": "Docker",
	"containerd.sock": "containerd",
	"podman.sock": "Podman",
	"crio.sock": "CRI-O",
	"buildkitd.sock": "BuildKit",
	"cri-dockerd.sock": "cri-dockerd",
}

# Red team 28: sockets as root-equivalent whose file name alone is too
# common to judge by: LXD's and Incus's daemons (their clients start
# privileged containers), systemd's private socket (systemctl as root).
privileged_socket_paths := {
	"lxd/unix.socket": "LXD",
	"incus/unix.socket": "Incus",
	"systemd/private": "systemd",
}

# METADATA
# title: privileged-socket
# description: |
#   The Docker, containerd and Podman sockets are the classic escape from a
#   file-based sandbox: whoever can talk to them can start a privileged
#   container that mounts the host's root. Allow them only when the sandboxed
#   tool really drives containers, and know that the sandbox then protects
#   very little.
# custom:
#   code: SBX015
#   severity: warning
warn_privileged_socket contains {
	"code": "SBX015",
	"msg": sprintf("unix socket %s (%s) is reachable: its clients can start privileged containers and control the host, which defeats the sandbox", [lib.path_string(s.path), what]),
	"node": s,
} if {
	lib.sandboxed
	some s in _net.unix_sockets
	parts := split(s.path.rel, "/")
	some name, what in privileged_sockets
	parts[count(parts) - 1] == name
}

warn_privileged_socket contains {
	"code": "SBX015",
	"msg": sprintf("unix socket %s (%s) is reachable: its clients can start privileged containers and control the host, which defeats the sandbox", [lib.path_string(s.path), what]),
	"node": s,
} if {
	lib.sandboxed
	some s in _net.unix_sockets
	some suffix, what in privileged_socket_paths
	endswith(concat("", ["/", s.path.rel]), concat("", ["/", suffix]))
}

# Red team 29: the D-Bus buses. The README names D-Bus's socket with
# Docker's as the classic escape: on the user's session bus
# (/run/user/UID/bus) systemd's user manager starts any command as a
# transient unit (systemd-run --user), outside the sandbox, and the bus
# activates services; the system bus reaches the host's services
# (systemd, polkit, NetworkManager, udisks) as their clients.
dbus_sockets := {
	`^run/user/[^/]+/bus$`: "D-Bus session bus",
	`(^|/)dbus/system_bus_socket$`: "D-Bus system bus",
}

warn_privileged_socket contains {
	"code": "SBX015",
	"msg": sprintf("unix socket %s (%s) is reachable: its clients can start programs outside the sandbox (systemd-run --user) and drive the host's services, which defeats the sandbox", [lib.path_string(s.path), what]),
	"node": s,
} if {
	lib.sandboxed
	some s in _net.unix_sockets
	s.path.anchor == "root"
	some re, what in dbus_sockets
	regex.match(re, s.path.rel)
}
