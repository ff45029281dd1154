package io.ringkv.node.dashboard;

import java.net.InetAddress;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The names under which the dashboard answers: a request whose {@code Host} names none of them is
 * refused, so that a page in the operator's browser cannot read the cluster by DNS rebinding (its
 * own name, made to resolve to this node, reaches the port, but the browser still sends that name
 * as the {@code Host}).
 *
 * <p>Allowed: the host of the node's URL (its {@code --host}); {@code localhost} when the node
 * listens on a loopback or wildcard address; the names given by {@code --ui-allowed-hosts} (for
 * operators who reach the node through a DNS name or a proxy); and any IP address literal, which
 * no DNS answer can stand behind (a browser that sends one loaded the page from that address
 * itself). The port is not compared: the connection already reached this node's port. Names are
 * compared without case and without a trailing dot.
 *
 * <p>Immutable, thread-safe.
 */
public final class DashboardHosts {

    /** A host name as RFC 1123 allows it, labels of letters, digits and hyphens. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Set<String> LOOPBACK_OR_WILDCARD = Set.of("localhost", "0.0.0.0", "[::]", "[::1]");

    private final Set<String> names;

    private DashboardHosts(Set<String> names) {
        this.names = names;
    }

    /**
     * @param nodeHost the host of the node's URL, which is also the address it binds
     * @param extra    further names ({@code --ui-allowed-hosts}), host names without port
     * @throws IllegalArgumentException for an extra entry that is not a host name (a port, a scheme)
     */
    public static DashboardHosts of(String nodeHost, List<String> extra) {
        Set<String> names = new TreeSet<>();
        String own = normalise(bracketed(nodeHost));
        names.add(own);
        if (LOOPBACK_OR_WILDCARD.contains(own) || own.startsWith("127.") || own.endsWith(".localhost")) {
            names.add("localhost");
        }
        for (String name : extra) {
            String normal = normalise(name.strip());
            if (!NAME.matcher(normal).matches() && !isIpLiteral(normal)) {
                throw new IllegalArgumentException("'" + name + "' is not a host name (give names without scheme or port, "
                        + "e.g. ringkv.example.org)");
            }
            names.add(normal);
        }
        return new DashboardHosts(Set.copyOf(names));
    }

    /** Whether a request with this {@code Host} (null when it had none) may read the dashboard. */
    boolean allows(String hostHeader) {
        if (hostHeader == null) {
            return false;
        }
        String host = normalise(withoutPort(hostHeader.strip()));
        return !host.isEmpty() && (names.contains(host) || isIpLiteral(host));
    }

    /** The names allowed by name (IP literals aside), sorted. */
    Set<String> names() {
        return new TreeSet<>(names);
    }

    private static String withoutPort(String host) {
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            return close < 0 ? "" : host.substring(0, close + 1);
        }
        int colon = host.lastIndexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }

    /** An IPv6 address written bare (as --host may give it) is written as in a URL. */
    private static String bracketed(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static String normalise(String host) {
        String lower = host.toLowerCase(Locale.ROOT);
        return lower.endsWith(".") ? lower.substring(0, lower.length() - 1) : lower;
    }

    /** Dotted-quad IPv4, or IPv6 in brackets; parsed without any lookup. */
    private static boolean isIpLiteral(String host) {
        if (IPV4.matcher(host).matches()) {
            for (String octet : host.split("\\.")) {
                if (Integer.parseInt(octet) > 255) {
                    return false;
                }
            }
            return true;
        }
        if (host.length() > 2 && host.startsWith("[") && host.endsWith("]")) {
            try {
                InetAddress.ofLiteral(host.substring(1, host.length() - 1));
                return true;
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
        return false;
    }
}
