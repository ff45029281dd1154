package io.ringkv.ops.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One Linux network namespace per node on a bridge of its own, so that links between nodes can be
 * cut while clients still reach every node: node i gets {@code 10.77.S.(i+2)} in namespace
 * {@code rkvS-i}, the host side of the bridge {@code 10.77.S.1}, with S chosen at random so that
 * runs side by side do not collide. A link is cut with a blackhole route on both ends (packets to
 * the other node are dropped before they leave; {@code iptables} and {@code tc netem} are not
 * needed, and are often missing). Needs root and {@code ip} (iproute2).
 *
 * <p>Threading: set up, cut and heal from one thread; {@link #close} undoes everything (also from a
 * shutdown hook).
 */
public final class NetworkNamespaces implements AutoCloseable {
    private static final long COMMAND_SECONDS = 10;

    private final int subnet;
    private final int nodes;
    private final String bridge;
    private boolean closed;

    private NetworkNamespaces(int subnet, int nodes) {
        this.subnet = subnet;
        this.nodes = nodes;
        this.bridge = "rkvbr" + subnet;
    }

    /** Whether this process can make namespaces: root, {@code ip} present and working. */
    public static String unavailableReason() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
        }
        try {
            run("ip", "netns", "list");
            return null;
        } catch (IOException e) {
            return "network namespaces unavailable: " + e.getMessage();
        }
    }

    static NetworkNamespaces create(int nodes) throws IOException {
        NetworkNamespaces namespaces = new NetworkNamespaces(ThreadLocalRandom.current().nextInt(10, 250), nodes);
        try {
            namespaces.setUp();
        } catch (IOException e) {
            namespaces.close();
            throw e;
        }
        return namespaces;
    }

    private void setUp() throws IOException {
        run("ip", "link", "add", bridge, "type", "bridge");
        run("ip", "addr", "add", hostAddress() + "/24", "dev", bridge);
        run("ip", "link", "set", bridge, "up");
        for (int i = 0; i < nodes; i++) {
            String ns = namespace(i);
            String veth = "rkvv" + subnet + "x" + i;
            run("ip", "netns", "add", ns);
            run("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns);
            run("ip", "link", "set", veth, "master", bridge);
            run("ip", "link", "set", veth, "up");
            run("ip", "netns", "exec", ns, "ip", "addr", "add", address(i) + "/24", "dev", "eth0");
            run("ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up");
            run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
        }
    }

    String namespace(int node) {
        return "rkv" + subnet + "-" + node;
    }

    String address(int node) {
        return "10.77." + subnet + "." + (node + 2);
    }

    String hostAddress() {
        return "10.77." + subnet + ".1";
    }

    /** The command prefix that runs a process in the node's namespace. */
    List<String> prefix(int node) {
        return List.of("ip", "netns", "exec", namespace(node));
    }

    /** Cuts the links between {@code node} and every other node; clients still reach it. */
    void isolate(int node) throws IOException {
        for (int other = 0; other < nodes; other++) {
            if (other != node) {
                route("add", node, other);
                route("add", other, node);
            }
        }
    }

    void rejoin(int node) throws IOException {
        for (int other = 0; other < nodes; other++) {
            if (other != node) {
                route("del", node, other);
                route("del", other, node);
            }
        }
    }

    private void route(String action, int from, int to) throws IOException {
        run("ip", "netns", "exec", namespace(from), "ip", "route", action, "blackhole", address(to) + "/32");
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = 0; i < nodes; i++) {
            quietly("ip", "netns", "del", namespace(i)); // takes the veth pair with it
        }
        quietly("ip", "link", "del", bridge);
    }

    private static void quietly(String... command) {
        try {
            run(command);
        } catch (IOException e) {
            // Already gone (a half-made set-up); nothing else to undo.
        }
    }

    private static void run(String... command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": no answer in " + COMMAND_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", command) + ": interrupted", e);
        }
        String output = new String(process.getInputStream().readAllBytes()).strip();
        if (process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (" + process.exitValue() + "): " + output);
        }
    }

    @Override
    public String toString() {
        return "NetworkNamespaces{" + bridge + ", " + nodes + " nodes}";
    }

    static List<String> hosts(NetworkNamespaces namespaces, int nodes) {
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            hosts.add(namespaces == null ? "127.0.0.1" : namespaces.address(i));
        }
        return hosts;
    }
}
