package io.ringkv.node;

import io.ringkv.store.Record;
import java.util.OptionalLong;

/**
 * The time a read's value has left, as the answer's {@value #FIELD} field: whole seconds, rounded
 * up, so a value still readable shows at least 1 and a fresh write with {@code ttl=N} shows N.
 *
 * <p>A field of its own rather than {@code Expires} or {@code Cache-Control: max-age}: those
 * would tell HTTP caches they may serve the value until then, but a later PUT or DELETE may change
 * it at any moment. A value without a time to live carries no such field, so answers for the
 * course API's requests stay what they were. Stateless.
 */
final class ExpiresIn {
    static final String FIELD = "X-Ringkv-Expires-In";

    private ExpiresIn() {
    }

    /**
     * Seconds left at {@code nowMillis} (rounded up), empty for a record that never expires.
     *
     * @throws IllegalArgumentException for a record already expired at {@code nowMillis}: it is not readable
     */
    static OptionalLong seconds(Record record, long nowMillis) {
        if (!record.expires()) {
            return OptionalLong.empty();
        }
        long leftMillis = record.expiresAtMillis() - nowMillis;
        if (leftMillis <= 0) {
            throw new IllegalArgumentException("the record expired " + -leftMillis + " ms ago");
        }
        return OptionalLong.of((leftMillis + 999) / 1000);
    }
}
