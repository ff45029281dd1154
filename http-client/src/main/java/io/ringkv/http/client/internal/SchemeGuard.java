package io.ringkv.http.client.internal;

import java.io.IOException;
import java.net.URI;
import java.util.Locale;

/**
 * Which URI schemes the client sends, decided before any socket is opened.
 *
 * <p>{@code https} is refused with an {@link IOException} until TLS is wired in: sending an
 * {@code https} request as cleartext would leak what the application meant to protect. Schemes
 * other than {@code http} and {@code https} are refused with {@link IllegalArgumentException}
 * at {@code send}/{@code sendAsync}, as the JDK client does for requests whose URI its own
 * request builder would have rejected. Stateless.
 */
final class SchemeGuard {
    static final String HTTPS_UNSUPPORTED = "https is not supported yet by RingHttpClient";

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

    /** Fails with an IOException when the route would need TLS, which this client cannot speak yet. */
    static void checkSendable(Route route) throws IOException {
        if (route.secure()) {
            throw new IOException(HTTPS_UNSUPPORTED);
        }
    }
}
