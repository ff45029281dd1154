package io.ringkv.node;

import io.ringkv.http.server.Request;

/**
 * The parameters of {@code GET /v0/entities}, read and checked:
 *
 * <ul>
 *   <li>{@code start} (required, inclusive) and {@code end} (exclusive, optional): keys, see {@link KeyParameters};
 *   <li>{@code local}: {@code true}/{@code 1}/empty or {@code false}/{@code 0}, this node's store only;
 *   <li>{@code limit}: at most this many records per answer, decimal digits naming 1..{@link #LIMIT_MAX};
 *       without it the whole range comes in one answer, as it always did;
 *   <li>{@code keysOnly}: exactly {@code true} or {@code false}; {@code true} sends keys without values.
 * </ul>
 *
 * @param end   null for "to the last key"
 * @param limit {@link #NO_LIMIT} when not given
 */
record RangeQuery(byte[] start, byte[] end, boolean localOnly, int limit, RangeFormat format) {

    /**
     * The largest {@code limit}: a page is held in memory before it is sent ({@link RangePage}),
     * and 10,000 keys are enough for a client to make progress while one answer stays short.
     */
    static final int LIMIT_MAX = 10_000;
    static final int NO_LIMIT = 0;
    static final String START = "start";

    /** @throws IllegalArgumentException with the message for the 400 */
    static RangeQuery read(Request request) {
        byte[] start = KeyParameters.required(request, START);
        byte[] end = KeyParameters.optional(request, "end");
        boolean local = request.queryParam("local").map(RangeQuery::local).orElse(false);
        int limit = request.queryParam("limit").map(RangeQuery::limit).orElse(NO_LIMIT);
        boolean keysOnly = request.queryParam("keysOnly").map(RangeQuery::keysOnly).orElse(false);
        return new RangeQuery(start, end, local, limit, keysOnly ? RangeFormat.KEYS_ONLY : RangeFormat.KEYS_AND_VALUES);
    }

    boolean paged() {
        return limit != NO_LIMIT;
    }

    private static boolean local(String value) {
        return switch (value) {
            case "true", "1", "" -> true;
            case "false", "0" -> false;
            default -> throw new IllegalArgumentException("local must be true or false, got '" + value + "'");
        };
    }

    /** Digits only: no sign, no spaces, no exponent, so that what is accepted is what is meant. */
    private static int limit(String value) {
        boolean digits = !value.isEmpty() && value.length() <= 9 && value.chars().allMatch(c -> c >= '0' && c <= '9');
        int limit = digits ? Integer.parseInt(value) : 0;
        if (limit < 1 || limit > LIMIT_MAX) {
            throw new IllegalArgumentException("limit must be a whole number from 1 to " + LIMIT_MAX + ", got '" + value + "'");
        }
        return limit;
    }

    private static boolean keysOnly(String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("keysOnly must be true or false, got '" + value + "'");
        };
    }
}
