package io.ringkv.node;

import io.ringkv.cluster.CasCondition;
import io.ringkv.http.server.Request;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.Record;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The preconditions of a PUT or DELETE (RFC 9110 §13.1, evaluated in the order of §13.2.2),
 * judged against the key's current record inside a compare-and-set:
 * <ol>
 *   <li>{@code If-Match}: {@code *} holds when the key has a value; a list of tags holds when the
 *       current version's {@code ETag} ({@link RecordVersion}) is one of them, compared strongly
 *       (a {@code W/} tag never matches).
 *   <li>otherwise {@code If-Unmodified-Since}: holds when the current version's
 *       {@code Last-Modified} is at or before the date, or when the key has no value (§13.1.4: no
 *       modification date to compare).
 *   <li>{@code If-None-Match}: {@code *} holds when the key has no value; a list of tags holds
 *       unless the current version's tag is one of them (weak comparison).
 * </ol>
 * "No value" is absent, deleted or expired. Every field is validated when the request is read: a
 * malformed one is a {@code 400}, never ignored.
 *
 * <p>Immutable, thread-safe.
 */
final class WriteCondition implements CasCondition {
    static final String IF_MATCH = "If-Match";
    static final String IF_UNMODIFIED_SINCE = "If-Unmodified-Since";
    /** The fields that make a PUT or DELETE conditional. */
    static final List<String> FIELDS = List.of(IF_MATCH, IfNoneMatch.FIELD, IF_UNMODIFIED_SINCE);

    private final EntityTagList ifMatch;
    private final EntityTagList ifNoneMatch;
    /** Epoch seconds, or null without the field. */
    private final Long unmodifiedSince;
    private final LongSupplier wallClockMillis;

    private WriteCondition(EntityTagList ifMatch, EntityTagList ifNoneMatch, Long unmodifiedSince, LongSupplier wallClockMillis) {
        this.ifMatch = ifMatch;
        this.ifNoneMatch = ifNoneMatch;
        this.unmodifiedSince = unmodifiedSince;
        this.wallClockMillis = wallClockMillis;
    }

    /**
     * The request's write preconditions, empty when it has none (a plain write).
     *
     * @param wallClockMillis this node's wall clock, which caps {@code Last-Modified} as on reads
     * @throws IllegalArgumentException for a malformed field (the 400's message)
     */
    static Optional<WriteCondition> of(Request request, LongSupplier wallClockMillis) {
        if (FIELDS.stream().noneMatch(field -> request.headers().first(field).isPresent())) {
            return Optional.empty();
        }
        List<String> match = request.headers().all(IF_MATCH);
        List<String> noneMatch = request.headers().all(IfNoneMatch.FIELD);
        List<String> since = request.headers().all(IF_UNMODIFIED_SINCE);
        if (since.size() > 1) {
            throw new IllegalArgumentException(IF_UNMODIFIED_SINCE + " must appear once, got " + since.size() + " fields");
        }
        return Optional.of(new WriteCondition(
                match.isEmpty() ? null : EntityTagList.parse(IF_MATCH, match),
                noneMatch.isEmpty() ? null : EntityTagList.parse(IfNoneMatch.FIELD, noneMatch),
                since.isEmpty() ? null : HttpDate.parseEpochSeconds(IF_UNMODIFIED_SINCE, since.getFirst()),
                wallClockMillis));
    }

    @Override
    public boolean holds(Optional<Record> live) {
        Optional<String> tag = live.map(record -> new RecordVersion(record.timestamp()).entityTag());
        if (ifMatch != null) {
            boolean matches = tag.isPresent() && (ifMatch.any() || ifMatch.containsStrongly(tag.get()));
            if (!matches) {
                return false;
            }
        } else if (unmodifiedSince != null && live.isPresent()) {
            long lastModifiedMillis = Math.min(HybridLogicalClock.millisOf(live.get().timestamp()), wallClockMillis.getAsLong());
            if (Math.floorDiv(lastModifiedMillis, 1000) > unmodifiedSince) {
                return false;
            }
        }
        if (ifNoneMatch != null && tag.isPresent()) {
            return !(ifNoneMatch.any() || ifNoneMatch.containsWeakly(tag.get()));
        }
        return true;
    }
}
