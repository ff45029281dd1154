"""Free TCP ports on 127.0.0.1, for every bench step that starts servers (cluster_harness, nginx)."""
import socket


def free_ports(n):
    """n distinct ports that were free a moment ago. All sockets stay bound until every port is
    known, so the n ports differ."""
    held = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        held.append(s)
    ports = [s.getsockname()[1] for s in held]
    for s in held:
        s.close()
    return ports
