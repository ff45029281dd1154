package io.ringkv.http.client.internal;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which authentication schemes may be sent to a proxy, as the JDK's networking properties say:
 * {@code jdk.http.auth.tunneling.disabledSchemes} for CONNECT tunnels (the JDK's default is
 * {@code Basic}: credentials sent in clear to a proxy for a connection that is otherwise encrypted
 * end to end), {@code jdk.http.auth.proxying.disabledSchemes} for requests forwarded by a proxy
 * (default: none). Both are comma-separated, case-insensitive scheme names.
 *
 * <p>Read once, from system properties, when this class is first used, as the JDK reads them once
 * per JVM; unlike the JDK, the defaults are built in rather than read from {@code conf/net.properties}.
 * Immutable.
 *
 * @param tunnelling schemes never sent on a CONNECT, lower case
 * @param proxying   schemes never sent to a forwarding proxy, lower case
 */
record ProxyAuthPolicy(Set<String> tunnelling, Set<String> proxying) {
    static final String TUNNELING_PROPERTY = "jdk.http.auth.tunneling.disabledSchemes";
    static final String PROXYING_PROPERTY = "jdk.http.auth.proxying.disabledSchemes";

    /** The policy of this JVM's system properties. */
    static final ProxyAuthPolicy SYSTEM = new ProxyAuthPolicy(
            schemes(System.getProperty(TUNNELING_PROPERTY, "Basic")),
            schemes(System.getProperty(PROXYING_PROPERTY, "")));

    static Set<String> schemes(String list) {
        return Arrays.stream(list.split(","))
                .map(scheme -> scheme.trim().toLowerCase(Locale.ROOT))
                .filter(scheme -> !scheme.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
    }

    /** Whether credentials of {@code scheme} may go on a CONNECT. */
    boolean tunnelAllows(String scheme) {
        return !tunnelling.contains(scheme.toLowerCase(Locale.ROOT));
    }

    /** Whether credentials of {@code scheme} may go to a proxy that forwards the request. */
    boolean proxyAllows(String scheme) {
        return !proxying.contains(scheme.toLowerCase(Locale.ROOT));
    }

    /** The scheme of a {@code Proxy-Authorization} value: its first token (RFC 9110 §11.4). */
    static String schemeOf(String authorization) {
        String trimmed = authorization.trim();
        int end = 0;
        while (end < trimmed.length() && !Character.isWhitespace(trimmed.charAt(end))) {
            end++;
        }
        return trimmed.substring(0, end);
    }
}
