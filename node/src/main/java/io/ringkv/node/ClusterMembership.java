package io.ringkv.node;

import java.net.URI;
import java.util.List;

/** Checks that a node started with {@code --cluster} finds itself in the list. */
final class ClusterMembership {
    private ClusterMembership() {
    }

    /**
     * @throws IllegalArgumentException when a URL is malformed, or a multi-node list does not
     *                                  contain {@code http://host:port}
     */
    static void check(List<String> urls, String host, int port) {
        if (urls.size() <= 1) {
            return;
        }
        boolean found = false;
        for (String url : urls) {
            URI uri;
            try {
                uri = URI.create(url.trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--cluster: '" + url + "' is not a URL");
            }
            if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 1) {
                throw new IllegalArgumentException("--cluster: '" + url + "' must look like http://host:port");
            }
            found |= uri.getPort() == port && uri.getHost().equalsIgnoreCase(host);
        }
        if (!found) {
            throw new IllegalArgumentException("--cluster must contain this node's own URL http://" + host + ":" + port);
        }
    }
}
