package io.ringkv.node.metrics;

import io.ringkv.http.server.Request;

/**
 * The operation label of a request, from its path and method, without allocating: a fixed,
 * small set, so every label combination can be resolved once.
 */
enum Operation {
    GET, PUT, DELETE, RANGE, STATUS, METRICS, INTERNAL, OTHER;

    /** The label value. */
    final String label = name().toLowerCase(java.util.Locale.ROOT);

    private static final String INTERNAL_PREFIX = "/internal/";

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
                return path.startsWith(INTERNAL_PREFIX) ? INTERNAL : OTHER;
            }
        }
    }

    /** Operations on the data: what the requests-per-second and p99 of {@code ringkv status} count. */
    boolean isData() {
        return this == GET || this == PUT || this == DELETE || this == RANGE;
    }
}
