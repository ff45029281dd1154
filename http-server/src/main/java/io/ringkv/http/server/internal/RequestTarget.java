package io.ringkv.http.server.internal;

/**
 * Splits a request-target (RFC 9112 §3.2) into path and query, keeping percent-encoding.
 * Stateless.
 */
final class RequestTarget {
    private RequestTarget() {
    }

    /** @return {@code [path, query]}; the query is "" when absent */
    static String[] split(String target) {
        String pathAndQuery = target;
        // RFC 9112 §3.2.2 absolute-form (sent to proxies, but a server MUST accept it).
        int scheme = target.indexOf("://");
        if (!target.startsWith("/") && scheme > 0) {
            int slash = target.indexOf('/', scheme + 3);
            int mark = target.indexOf('?', scheme + 3);
            if (slash < 0 || (mark >= 0 && mark < slash)) {
                pathAndQuery = "/" + (mark >= 0 ? target.substring(mark) : "");
            } else {
                pathAndQuery = target.substring(slash);
            }
        }
        int fragment = pathAndQuery.indexOf('#');
        if (fragment >= 0) {
            pathAndQuery = pathAndQuery.substring(0, fragment);
        }
        int mark = pathAndQuery.indexOf('?');
        if (mark < 0) {
            return new String[] {pathAndQuery, ""};
        }
        return new String[] {pathAndQuery.substring(0, mark), pathAndQuery.substring(mark + 1)};
    }
}
