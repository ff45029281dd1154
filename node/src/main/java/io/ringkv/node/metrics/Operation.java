package io.ringkv.node.metrics;

import io.ringkv.http.server.Request;

/**
 * The operation label of a request, from its path and method, without allocating: a fixed,
 * small set, so every label combination can be resolved once.
 */
enum Operation {
    GET, PUT, DELETE, RANGE, STATUS, METRICS, INTERNAL, UI, OTHER;

    /** The label value. */
    final String label = name().toLowerCase(java.util.Locale.ROOT);

    private static final String INTERNAL_PREFIX = "/internal/";
    /** The dashboard's page and data (the node module's {@code Dashboard}). */
    private static final String UI_ROOT = "/ui";

    static Operation of(Request request) {
        String path = request.path();
        switch (path) {
            case "/v0/entity" -> {
                return switch (request.method()) {
                    case "GET", "HEAD" -> GET;
                    case "PUT" -> PUT;
                    case "DELETE" -> DELETE;
                    default -> OTHER;
                };
            }
            case "/v0/entities" -> {
                return RANGE;
            }
            case "/v0/status" -> {
                return STATUS;
            }
            case "/metrics" -> {
                return METRICS;
            }
            default -> {
                if (path.startsWith(INTERNAL_PREFIX)) {
                    return INTERNAL;
                }
                return path.startsWith(UI_ROOT) && (path.length() == UI_ROOT.length() || path.charAt(UI_ROOT.length()) == '/')
                        ? UI : OTHER;
            }
        }
    }

    /** Operations on the data: what the requests-per-second and p99 of {@code ringkv status} count. */
    boolean isData() {
        return this == GET || this == PUT || this == DELETE || this == RANGE;
    }
}
