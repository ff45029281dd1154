package io.ringkv.http.h2;

/**
 * Priority fields of HEADERS and PRIORITY frames (RFC 9113 §5.3.2, §6.3). The scheme is
 * deprecated; we parse and write the fields but do not schedule by them.
 *
 * @param weight 1..256 (the wire carries weight - 1)
 */
public record Priority(int streamDependency, boolean exclusive, int weight) {
    public Priority {
        if (weight < 1 || weight > 256) {
            throw new IllegalArgumentException("weight must be 1..256: " + weight);
        }
    }
}
