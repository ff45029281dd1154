package io.ringkv.http.client.internal;

import java.net.URI;
import java.util.Locale;

/**
 * Which URIs the client sends, decided before any socket is opened: schemes other than
 * {@code http} and {@code https}, and URIs without a host, are refused with
 * {@link IllegalArgumentException} at {@code send}/{@code sendAsync}, as the JDK client does for
 * requests whose URI its own request builder would have rejected. Stateless.
 */
final class SchemeGuard {
    private SchemeGuard() {
    }

    /** Throws {@link IllegalArgumentException} for a URI no HTTP client can send (JDK: "unsupported URI"). */
    static void checkSupported(URI uri) {
        String scheme = uri.getScheme();
        if (scheme == null) {
            throw new IllegalArgumentException("URI with undefined scheme");
        }
        String lower = scheme.toLowerCase(Locale.ROOT);
        if (!lower.equals("http") && !lower.equals("https")) {
            throw new IllegalArgumentException("invalid URI scheme " + scheme);
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("unsupported URI " + uri);
        }
    }

}
