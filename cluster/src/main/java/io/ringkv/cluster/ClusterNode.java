package io.ringkv.cluster;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * One node of the cluster, identified by its normalised base URL {@code http://host:port}, or
 * {@code https://host:port} in a cluster whose nodes speak TLS (then node-to-node calls are TLS
 * too).
 *
 * <p>The id is what placement hashes, so every process must derive the same id from the same
 * node: {@link #parse} lowercases scheme and host, writes {@code localhost} as {@code 127.0.0.1},
 * makes the default port explicit and drops a trailing {@code /}. {@code http://Node-1:80/} and
 * {@code http://node-1} are the same node, and so are {@code http://localhost:8080} and
 * {@code http://127.0.0.1:8080}.
 *
 * @param id   the normalised URL, e.g. {@code http://10.0.0.5:8080}
 * @param host the host as it appears in the id (IPv6 literals keep their brackets)
 * @param port the TCP port, 1..65535
 */
public record ClusterNode(String id, String host, int port) {

    private static final int DEFAULT_HTTP_PORT = 80;
    private static final int DEFAULT_HTTPS_PORT = 443;
    private static final int MAX_PORT = 65_535;

    /**
     * Parses and normalises a node URL.
     *
     * @throws IllegalArgumentException naming the offending URL when it is not
     *         {@code http[s]://host[:port][/]} (no user info, path, query or fragment)
     */
    public static ClusterNode parse(String url) {
        URI uri = toUri(url);
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw invalid(url, "the scheme must be http or https");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw invalid(url, "a host is required");
        }
        if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null
                || !(uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))) {
            throw invalid(url, "only scheme, host and port are allowed");
        }
        int port = uri.getPort() != -1 ? uri.getPort() : scheme.equals("https") ? DEFAULT_HTTPS_PORT : DEFAULT_HTTP_PORT;
        if (port < 1 || port > MAX_PORT) {
            throw invalid(url, "the port must be in 1.." + MAX_PORT);
        }
        String host = canonicalHost(uri.getHost().toLowerCase(Locale.ROOT));
        return new ClusterNode(scheme + "://" + host + ":" + port, host, port);
    }

    /**
     * What placement hashes: the id with its scheme written as {@code http}. The scheme says how
     * to reach a node, not which node it is. (The cluster metadata still names members by their
     * URLs, scheme included, so a node refuses to start under another scheme than its data
     * recorded: the node module's {@code ClusterAddressFile}.)
     */
    public String placementKey() {
        return secure() ? "http" + id.substring("https".length()) : id;
    }

    /** Whether calls to this node go over TLS ({@code https}). */
    public boolean secure() {
        return id.startsWith("https:");
    }

    /**
     * {@code localhost} and {@code *.localhost} are the IPv4 loopback literal (RFC 6761 reserves
     * them for loopback), so a list with {@code localhost} and one with {@code 127.0.0.1} name the
     * same nodes. Other names are kept as written, without a DNS lookup: a node's id must not
     * depend on how one machine resolves it (Debian maps a machine's own name to 127.0.1.1), so
     * every node must list a node under the same name; the topology fingerprint on every internal
     * request catches a list that differs.
     */
    private static String canonicalHost(String host) {
        return host.equals("localhost") || host.endsWith(".localhost") ? "127.0.0.1" : host;
    }

    /** The base URI for requests to this node, e.g. {@code http://10.0.0.5:8080}. */
    public URI uri() {
        return URI.create(id);
    }

    @Override
    public String toString() {
        return id;
    }

    private static URI toUri(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("a node URL is required, got an empty one");
        }
        try {
            URI uri = new URI(url.strip());
            if (uri.isOpaque()) {
                throw invalid(url, "expected http://host:port or https://host:port");
            }
            // A "host" URI.getHost() could not parse (e.g. an underscore) leaves only the authority.
            return uri.getHost() == null && uri.getRawAuthority() != null
                    ? uri.parseServerAuthority() : uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("invalid node URL '" + url + "': " + e.getMessage(), e);
        }
    }

    private static IllegalArgumentException invalid(String url, String reason) {
        return new IllegalArgumentException("invalid node URL '" + url + "': " + reason);
    }
}
