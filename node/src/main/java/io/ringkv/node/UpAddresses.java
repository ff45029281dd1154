package io.ringkv.node;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The node URLs of the cluster {@code ringkv up} made in a data directory, kept in
 * {@value #NAME} there, one per line in node order.
 *
 * <p>A node's URL is its identity in the cluster metadata (its Raft peer id, the member the
 * metadata lists): a cluster restarted on its data with other ports would route every request to
 * addresses nobody listens on. So the first {@code up} on a directory records the URLs it chose, and
 * every later one starts the nodes on the same ones or refuses, saying why.
 */
final class UpAddresses {
    static final String NAME = "up.urls";

    private UpAddresses() {
    }

    /** The URLs recorded in {@code dataDir}, or empty when none were. */
    static Optional<List<String>> read(Path dataDir) throws IOException {
        Path file = dataDir.resolve(NAME);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        List<String> urls = Files.readAllLines(file, StandardCharsets.UTF_8).stream().map(String::strip)
                .filter(line -> !line.isEmpty()).toList();
        for (String url : urls) {
            URI uri;
            try {
                uri = URI.create(url);
            } catch (IllegalArgumentException e) {
                throw new IOException(file + " names " + url + ", not a URL", e);
            }
            if (uri.getPort() < 1 || uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new IOException(file + " names " + url + ", not an http(s)://HOST:PORT URL");
            }
        }
        if (urls.isEmpty()) {
            throw new IOException(file + " is empty");
        }
        return Optional.of(urls);
    }

    /** Records {@code urls} in {@code dataDir}, replacing the file in one step. */
    static void write(Path dataDir, List<String> urls) throws IOException {
        io.ringkv.cluster.FileReplacement.write(dataDir.resolve(NAME),
                (String.join("\n", urls) + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * Why starting {@code nodes} nodes on {@code host} ({@code https} when {@code tls}, ports from
     * {@code basePort} when not null) cannot reuse the recorded {@code urls}; empty when it can.
     */
    static Optional<String> mismatch(List<String> urls, int nodes, String host, boolean tls, Integer basePort, Path dataDir) {
        String again = "; start it with the same flags as at first, or give a new --data for a new cluster";
        if (urls.size() != nodes) {
            return Optional.of(dataDir + " holds a cluster of " + urls.size() + " node(s), started by an earlier up (" + NAME
                    + "), not " + nodes + again + " (a node is added with serve --join, as up prints)");
        }
        URI first = URI.create(urls.getFirst());
        if (!first.getHost().equals(host)) {
            return Optional.of(dataDir + " holds a cluster whose nodes listen on " + first.getHost() + ", not " + host + again);
        }
        if (!first.getScheme().equals(tls ? "https" : "http")) {
            return Optional.of(dataDir + " holds a cluster whose nodes serve " + first.getScheme() + (tls ? ", not https (--tls)" : ", so give --tls")
                    + again);
        }
        if (basePort != null) {
            for (int i = 0; i < urls.size(); i++) {
                if (URI.create(urls.get(i)).getPort() != basePort + i) {
                    return Optional.of(dataDir + " holds a cluster whose node-" + (i + 1) + " listens on port "
                            + URI.create(urls.get(i)).getPort() + ", not " + (basePort + i) + " (--base-port " + basePort + ")" + again);
                }
            }
        }
        return Optional.empty();
    }

    /** The ports of {@code urls}, in order. */
    static List<Integer> ports(List<String> urls) {
        return urls.stream().map(url -> URI.create(url).getPort()).toList();
    }
}
